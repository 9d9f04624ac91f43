#!/bin/sh
# Builds the test files of package elfsym from ../../elfcfi/testdata/src
# with gcc and binutils, compressed with zstd:
#   prog            a -g build with .symtab and DWARF (sources as /src)
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
(cd $src && gcc -O2 -g -ffile-prefix-map="$(pwd)"=/src -Wl,--build-id -o "$tmp/prog" prog.c allcfi.S)
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
# The oracle of source lines: binutils addr2line at every instruction of
# .text that objdump lists.
objdump -d --no-show-raw-insn -j .text prog | awk '/^ +[0-9a-f]+:/ { sub(":", "", $1); print "0x" $1 }' >addrs
addr2line -e prog -a $(cat addrs) | paste - - | sed 's/ (discriminator [0-9]*)//' >"$out/prog.addr2line.txt"
for f in prog prog-stripped prog.debug prog-mini; do
	zstd -q -19 -f "$f" -o "$out/$f.zst"
done
