#!/bin/sh
# Builds the C++ test program of package dumpsyms from src/ with g++ and
# the Debian cross compilers (g++-aarch64-linux-gnu, g++-arm-linux-gnueabihf,
# g++-i686-linux-gnu), compressed with zstd:
#   <arch>-cxx       -O2 -g: DWARF 5 with inlined calls, DW_AT_ranges
#   <arch>-cxx4      -O2 -gdwarf-4 (amd64, x86): .debug_ranges, which
#                    Google's dump_syms reads (and sorts)
# Run from this directory. The oracle (Google's dump_syms) runs in the tests.
set -eu
out=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for arch in amd64 x86 arm arm64; do
	case $arch in
	amd64) cxx=g++ ;;
	x86) cxx=i686-linux-gnu-g++ ;;
	arm) cxx=arm-linux-gnueabihf-g++ ;;
	arm64) cxx=aarch64-linux-gnu-g++ ;;
	esac
	"$cxx" -O2 -g -ffile-prefix-map="$(pwd)"=/src -o "$tmp/$arch-cxx" src/shapes.cc
	zstd -q -19 -f "$tmp/$arch-cxx" -o "$out/$arch-cxx.zst"
	case $arch in amd64 | x86)
		"$cxx" -O2 -gdwarf-4 -ffile-prefix-map="$(pwd)"=/src -o "$tmp/$arch-cxx4" src/shapes.cc
		zstd -q -19 -f "$tmp/$arch-cxx4" -o "$out/$arch-cxx4.zst" ;;
	esac
done
