#!/usr/bin/env bash
# Builds testdata/macos: a small program of x86_64 and arm64 Mach-O (no SDK:
# -nostdlib-like, its own entry _start) and its dSYM bundles, for the
# Mach-O reader, compact unwind and dump_syms tests.
#   frames.c  with frame pointers   (compact unwind: RBP frame / arm64 frame)
#   leaf.c    without               (x86_64 frameless immediate and indirect,
#                                     arm64 frameless and DWARF mode)
# Needs Debian's clang, lld-19 (ld64.lld-19: lld 14 writes __eh_frame
# unrelocated and DWARF-mode encodings without offsets) and llvm (dsymutil).
# The build runs in a fixed directory so that the debug map's paths, hence
# the UUIDs lld derives from the contents, are the same on every run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=$PWD/testdata/macos
build=/tmp/minidump-stackwalk-macos-build
rm -rf "$build"
mkdir -p "$build"
cp "$out"/src/*.c "$build"/
cd "$build"
for arch in x86_64 arm64; do
	clang -target "$arch-apple-macos11" -g -O1 -fno-stack-protector -fno-omit-frame-pointer -c frames.c -o "frames-$arch.o"
	clang -target "$arch-apple-macos11" -g -O1 -fno-stack-protector -fomit-frame-pointer -c leaf.c -o "leaf-$arch.o"
	mkdir -p "$arch"
	ld64.lld-19 -arch "$arch" -platform_version macos 11.0 11.0 -e _start -o "$arch/crash" "frames-$arch.o" "leaf-$arch.o"
	dsymutil "$arch/crash" -o "$arch/crash.dSYM"
	rm -rf "${out:?}/$arch"
	mkdir -p "$out/$arch"
	cp -r "$arch/crash" "$arch/crash.dSYM" "$out/$arch/"
done
rm -rf "$build"
