#!/bin/sh
# Builds the test files of package elfsym from ../../elfcfi/testdata/src
# with gcc and binutils, compressed with zstd:
#   prog            a -g build with .symtab and DWARF
#   prog-stripped   prog stripped, with a .gnu_debuglink to prog.debug
#   prog.debug      objcopy --only-keep-debug of prog
#   prog-mini       prog stripped, with MiniDebugInfo (.gnu_debugdata: an xz
#                   compressed ELF with the .symtab of the functions not in
#                   .dynsym, as Fedora's find-debuginfo makes it)
# Run from this directory.
set -eu
out=$(pwd)
src=../../elfcfi/testdata/src
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -g -ffile-prefix-map="$(cd $src && pwd)"=src -Wl,--build-id -o "$tmp/prog" $src/prog.c $src/allcfi.S
cd "$tmp"
objcopy --only-keep-debug prog prog.debug
strip -o prog-stripped prog
objcopy --add-gnu-debuglink=prog.debug prog-stripped
nm -D prog --format=posix --defined-only | awk '{ print $1 }' | sort >dynsyms
nm prog --format=posix --defined-only | awk '{ if ($2 == "T" || $2 == "t") print $1 }' | sort >funcsyms
comm -13 dynsyms funcsyms >keep
objcopy --only-keep-debug prog mini
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep mini
xz -9 mini
strip -o prog-mini prog
objcopy --add-section .gnu_debugdata=mini.xz prog-mini
# The oracle: binutils nm's function symbols of prog.
nm -S --defined-only prog | awk '$3 ~ /^[tTiW]$/' >"$out/prog.nm.txt"
for f in prog prog-stripped prog.debug prog-mini; do
	zstd -q -19 -f "$f" -o "$out/$f.zst"
done
