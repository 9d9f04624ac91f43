#!/usr/bin/env bash
# Side by side: Breakpad's one-process-per-dump loop against one
# `minidump-stackwalk batch` run over the same dumps and symbols, and our
# own one-process-per-dump loop for reference. Prints the median wall time
# of each over RUNS runs (one untimed warm-up run first, so the page cache
# is warm for all) and the ratios.
#
#   usage: scripts/bench-batch.sh [DUMPDIR [SYMDIR [RUNS [JOBS]]]]
#
# Defaults: ../shared/perf/dumps, the perf symbols (internal/testkit/corpus
# PerfSymbolsDir: $LLVMCRASH_SYMS or ~/.cache/minidump-stackwalk-ci/
# llvmcrash-syms), 5 runs, -j = number of CPUs. Breakpad's
# minidump_stackwalk is $BREAKPAD_ORACLE_DIR/minidump_stackwalk, else the
# copy .ci/run caches, else /tmp/oracle/package/bin/linux-x64, else it is
# fetched with `npm pack minidump@0.26.0` into a temporary directory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dumps=${1:-$root/../shared/perf/dumps}
syms=${2:-${LLVMCRASH_SYMS:-${XDG_CACHE_HOME:-$HOME/.cache}/minidump-stackwalk-ci/llvmcrash-syms}}
runs=${3:-5}
jobs=${4:-$(nproc)}
[[ -d $dumps && -d $syms ]] || { echo "usage: $0 [DUMPDIR [SYMDIR [RUNS [JOBS]]]] ($dumps or $syms missing)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bp=
for d in "${BREAKPAD_ORACLE_DIR:-}" "${XDG_CACHE_HOME:-$HOME/.cache}/minidump-stackwalk-ci/minidump-0.26.0/package/bin/linux-x64" /tmp/oracle/package/bin/linux-x64; do
	if [[ -n $d && -x $d/minidump_stackwalk ]]; then bp=$d/minidump_stackwalk; break; fi
done
if [[ -z $bp ]]; then
	(cd "$tmp" && npm pack --silent minidump@0.26.0 >/dev/null && tar xzf minidump-0.26.0.tgz)
	bp=$tmp/package/bin/linux-x64/minidump_stackwalk
fi
ours=$tmp/minidump-stackwalk
(cd "$root" && go build -o "$ours" ./cmd/minidump-stackwalk)
mapfile -t files < <(find "$dumps" -type f -name '*.dmp' | sort)
echo "${#files[@]} dumps in $dumps; symbols $syms; $runs runs; batch -j $jobs; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

breakpad_loop() { for f in "${files[@]}"; do "$bp" "$f" "$syms" >/dev/null 2>&1 || true; done; }
ours_loop() { for f in "${files[@]}"; do "$ours" "$f" "$syms" >/dev/null 2>&1 || true; done; }
ours_batch() { "$ours" batch -j "$jobs" --symbols-path "$syms" "$dumps" >/dev/null 2>&1 || true; }

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
# bench FUNC: prints the median wall time in seconds.
bench() {
	"$1"
	for _ in $(seq "$runs"); do
		local t0 t1
		t0=$(date +%s.%N)
		"$1"
		t1=$(date +%s.%N)
		echo "$t1 - $t0" | bc -l
	done | median
}
b=$(bench breakpad_loop)
l=$(bench ours_loop)
o=$(bench ours_batch)
printf '%-42s %8.3f s\n' "Breakpad minidump_stackwalk, one per dump" "$b" "minidump-stackwalk, one process per dump" "$l" "minidump-stackwalk batch -j $jobs" "$o"
printf 'batch vs Breakpad loop: %.1fx faster; vs our own loop: %.1fx\n' "$(echo "$b / $o" | bc -l)" "$(echo "$l / $o" | bc -l)"
