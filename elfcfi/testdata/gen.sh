#!/bin/sh
# Builds the test binaries of package elfcfi from src/ with gcc and the
# Debian cross compilers (gcc-aarch64-linux-gnu, gcc-arm-linux-gnueabihf,
# gcc-i686-linux-gnu), compressed with zstd:
#   <arch>-eh        .eh_frame (+ .eh_frame_hdr); on arm also .ARM.exidx
#                    (-funwind-tables, src/exidx.S)
#   <arch>-df        .debug_frame only (-fno-asynchronous-unwind-tables)
# Run from this directory. The oracles (readelf) run in the tests.
set -eu
out=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for arch in amd64 x86 arm arm64; do
	case $arch in
	amd64) cc=gcc ;;
	x86) cc=i686-linux-gnu-gcc ;;
	arm) cc=arm-linux-gnueabihf-gcc ;;
	arm64) cc=aarch64-linux-gnu-gcc ;;
	esac
	extra=
	if [ $arch = arm ]; then extra="-funwind-tables src/exidx.S"; fi
	"$cc" -O2 $extra -o "$tmp/$arch-eh" src/prog.c src/allcfi.S
	"$cc" -O2 -g -fno-asynchronous-unwind-tables -fno-exceptions -DDEBUG_FRAME \
		-o "$tmp/$arch-df" src/prog.c src/allcfi.S
	for v in eh df; do
		zstd -q -19 -f "$tmp/$arch-$v" -o "$out/$arch-$v.zst"
	done
done

# The oracle: readelf's own decoding of the same tables, kept with the
# binaries so the tests run where binutils is not installed.
for f in *-eh.zst *-df.zst ../../testdata/cores/arm64-crashdemo.zst ../../testdata/cores/arm-crashdemo.zst; do
	name=$(basename "$f" .zst)
	zstd -qdcf "$f" >"$tmp/bin"
	readelf --debug-dump=frames-interp "$tmp/bin" | zstd -q -19 -f -o "$out/$name.frames.txt.zst"
	case $name in arm-*)
		readelf -u "$tmp/bin" | zstd -q -19 -f -o "$out/$name.exidx.txt.zst" ;;
	esac
done
