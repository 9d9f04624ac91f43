#!/bin/sh
# Makes testdata/windows/x64: real Windows x64 minidumps of wincrash.c
# (built here with clang and lld for x86_64-w64-mingw32, with a PDB) that
# Wine runs, and their oracles. See docs/testdata.md, "Windows".
#
# Needs Debian's clang, lld, mingw-w64 (for the headers, the CRT and
# libgcc), wine (8.0), zstd and Go. Runs in a private WINEPREFIX.
#
#   testdata/windows/x64/wincrash.exe                 the program (DWARF of MinGW's CRT stripped)
#   testdata/windows/x64/wincrash.pdb.zst             its PDB
#   testdata/windows/x64/CASE.dmp.zst                 its dump, CodeView records filled in
#   testdata/windows/x64/wine/NAME.dll.zst            the Wine DLLs the walks go through,
#                                                     reduced to headers, .pdata, .xdata, .edata
#                                                     (kernelbase.dll without .edata: its 1,600
#                                                     export names are most of its size)
#   testdata/windows/oracle/CASE.winedbg.txt          winedbg attached to the live process at the
#                                                     dump: every thread's backtrace
#   testdata/windows/oracle/CASE.winedbg-dump.txt     winedbg reading the dump: the crash thread
set -eu
cd "$(dirname "$0")/../../.."
repo=$(pwd)
out=testdata/windows/x64
oracle=testdata/windows/oracle
build=/tmp/wincrash # a fixed path: the PDB path in the image is under it
wineprefix=$(mktemp -d)
trap 'rm -rf "$wineprefix"' EXIT
export WINEPREFIX="$wineprefix" WINEDEBUG=-all
winedlls=/usr/lib/x86_64-linux-gnu/wine/x86_64-windows
libgcc=$(ls -d /usr/lib/gcc/x86_64-w64-mingw32/*-win32 | head -1)

rm -rf "$build" && mkdir -p "$build" "$out/wine" "$oracle"
go build -o "$build/wintool" ./scripts/gen-testdata/windows/wintool
(cd "$build" && clang --target=x86_64-w64-mingw32 -O1 -gcodeview -fuse-ld=lld -L"$libgcc" \
	-Wl,--pdb=wincrash.pdb -o wincrash.exe "$repo/scripts/gen-testdata/windows/wincrash.c" -ldbghelp)
# MinGW's CRT objects carry DWARF; the PDB has our debug info.
x86_64-w64-mingw32-strip --strip-debug "$build/wincrash.exe"
wineboot -i >/dev/null 2>&1 || true

for c in leaf fp qsort prolog epilog; do
	(cd "$build" && WINCRASH_WINEDBG=$c.winedbg.raw wine wincrash.exe $c $c.dmp 2>/dev/null) || true
	test -s "$build/$c.dmp"
	"$build/wintool" fixcv "$build/$c.dmp" "$build" "$winedlls"
	# winedbg lists every process of the Wine session: keep ours, without
	# the thread winedbg itself injected (DbgUiRemoteBreakin).
	tr -d '\r' <"$build/$c.winedbg.raw" | awk '
		/^Backtracing for thread/ { keep = /wincrash\.exe/; n = 0; buf = "" }
		keep { buf = buf $0 "\n"; if (/DbgUiRemoteBreakin/) skip = 1 }
		/^$/ && keep { if (!skip) printf "%s", buf; buf = ""; skip = 0; keep = 0 }
	' >"$oracle/$c.winedbg.txt"
	(cd "$build" && echo quit | winedbg $c.dmp 2>/dev/null) | tr -d '\r' |
		sed -n '/^Backtrace:/,/^Wine-dbg>/p' | grep -v '^Wine-dbg>' >"$oracle/$c.winedbg-dump.txt"
	zstd -q -19 -f "$build/$c.dmp" -o "$out/$c.dmp.zst"
done
cp "$build/wincrash.exe" "$out/"
zstd -q -19 -f "$build/wincrash.pdb" -o "$out/wincrash.pdb.zst"
for d in ntdll kernel32 kernelbase msvcrt; do
	flag=
	test $d = kernelbase && flag=-noexports
	"$build/wintool" reduce $flag "$winedlls/$d.dll" "$build/$d.dll"
	zstd -q -19 -f "$build/$d.dll" -o "$out/wine/$d.dll.zst"
done
