#!/bin/sh
# Rebuilds the lld test PDBs (Debian's clang and lld): a tiny program with a
# __stdcall and a __fastcall function, a struct parameter and an inlined
# call, linked without a C runtime for 32- and 64-bit x86.
set -e
cd "$(dirname "$0")"
for arch in i686 x86_64; do
	clang --target=$arch-pc-windows-msvc -c -g -gcodeview -O2 -fno-omit-frame-pointer a.c -o a-$arch.obj
	lld-link /debug /nodefaultlib /entry:mainCRTStartup /subsystem:console a-$arch.obj /out:a-$arch.exe /pdb:a-$arch.pdb
	zstd -19 -q -f a-$arch.pdb -o a-$arch.pdb.zst
	zstd -19 -q -f a-$arch.exe -o a-$arch.exe.zst
	rm a-$arch.obj a-$arch.exe a-$arch.pdb a-$arch.lib 2>/dev/null || true
done
