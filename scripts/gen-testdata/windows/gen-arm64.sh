#!/bin/sh
# Builds the ARM64 Windows DLLs whose unwind data pe's tests decode
# (testdata/windows/arm64) and llvm-readobj's reading of them, the oracle
# (testdata/windows/oracle/arm64-*.readobj-unwind.txt).
# Needs Debian's clang, lld and llvm (clang 14 here). No CRT: the DLLs have
# no entry point and define their own __chkstk.
set -eu
cd "$(dirname "$0")/../../.."
src=scripts/gen-testdata/windows/arm64-unwind.c
out=testdata/windows/arm64
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out" testdata/windows/oracle
build() { # name, clang flags...
	name=$1
	shift
	clang --target=aarch64-windows-msvc "$@" -c "$src" -o "$tmp/$name.o"
	lld-link /dll /noentry /nodefaultlib /out:"$out/$name.dll" "$tmp/$name.o"
	llvm-readobj --unwind "$out/$name.dll" | sed "s|File: .*|File: $out/$name.dll|" \
		>"testdata/windows/oracle/arm64-$name.dll.readobj-unwind.txt"
}
build unwind-O0 -O0
build unwind-O2 -O2
build unwind-fp -O1 -fno-omit-frame-pointer
