#!/usr/bin/env bash
# Regenerates this directory's arm64 crash: a static program crashing in a
# CFI-less leaf (leaf.S) under qemu-aarch64, converted with cmd/core2md;
# leaf.sym.gz from Breakpad's dump_syms; gdb.frames.txt (gdb-multiarch's
# backtrace of the qemu core, via scripts/gen-testdata/gdb_frames.py) and
# breakpad.machine.txt (minidump_stackwalk -m) as oracles.
# Needs aarch64-linux-gnu-gcc, qemu-aarch64, gdb-multiarch and /tmp/oracle.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../../.." && pwd)
BREAKPAD=${BREAKPAD:-/tmp/oracle/package/bin/linux-x64}
WORK=${WORK:-/tmp/f-arm64-leaf}
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"
aarch64-linux-gnu-gcc -g -O2 -fno-omit-frame-pointer -static -Wl,--build-id -o leaf "$HERE/leaf.c" "$HERE/leaf.S"
(ulimit -c unlimited; qemu-aarch64 ./leaf >/dev/null 2>&1 || true)
mv qemu_leaf_*.core core
(cd "$ROOT" && go build -o "$WORK/core2md" ./cmd/core2md)
./core2md -module "$WORK/leaf" core "$HERE/leaf.dmp"
"$BREAKPAD/dump_syms" leaf > leaf.sym 2>/dev/null
id=$(head -1 leaf.sym | awk '{print $4}')
mkdir -p "syms/leaf/$id" && cp leaf.sym "syms/leaf/$id/leaf.sym"
gzip -9 -c leaf.sym > "$HERE/leaf.sym.gz"
echo "$id" > "$HERE/debug_id.txt"
gdb-multiarch -batch -nx -iex "set debuginfod enabled off" leaf core -x "$ROOT/scripts/gen-testdata/gdb_frames.py" 2>/dev/null | grep -E '^(#|thread|reg|frame) ' > "$HERE/gdb.frames.txt"
"$BREAKPAD/minidump_stackwalk" -m "$HERE/leaf.dmp" syms > "$HERE/breakpad.machine.txt" 2>/dev/null
