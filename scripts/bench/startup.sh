#!/bin/bash
# Process start-up side by side: our CLI and Breakpad's minidump_stackwalk
# on a tiny dump, each run many times in a row, in alternating blocks. A
# run of a tiny dump is mostly process start, under the 10 ms resolution of
# GNU time, so each block is timed whole (date +%s%N) and divided by its
# runs. Prints the best (least disturbed) and the median block of each, in
# milliseconds per run, and their ratio. Then scripts/bench/runs times 200
# more runs of each (alternating blocks of 20) from their own rusage: wall,
# CPU (all threads) and minor page faults per run.
#
#   usage: scripts/bench/startup.sh [-b BLOCKS] [-n RUNS_PER_BLOCK] DUMP [SYMPATH...]
#   e.g.   scripts/bench/startup.sh testdata/dumps/amd64-threads.dmp
#
# Environment: OURS, BREAKPAD, OURS_ARGS as for side-by-side.sh.
set -euo pipefail
blocks=11
runs=50
while [ $# -gt 0 ]; do
  case "$1" in
    -b) blocks=$2; shift 2 ;;
    -n) runs=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { sed -n 2,12p "$0" >&2; exit 2; }
dump=$1; shift
. "$(dirname "$0")/common.sh"
[ -x "$BREAKPAD" ] || { echo "no Breakpad binary at $BREAKPAD" >&2; exit 1; }

block() { # name binary args... -> appends ms per run to $tmp/name
  local name=$1; shift
  local t0 t1
  t0=$(date +%s%N)
  for ((k = 0; k < runs; k++)); do "$@" >/dev/null 2>&1 || true; done
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" -v n="$runs" 'BEGIN {printf "%.3f\n", (b-a)/1e6/n}' >> "$tmp/$name"
}
block warm "$OURS" ${OURS_ARGS:-} "$dump" "$@"; block warm "$BREAKPAD" "$dump" "$@"
: > "$tmp/ours"; : > "$tmp/bp"
for ((i = 0; i < blocks; i++)); do
  block ours "$OURS" ${OURS_ARGS:-} "$dump" "$@"
  block bp "$BREAKPAD" "$dump" "$@"
done
best() { sort -n "$1" | head -1; }
median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "dump: $dump  blocks: $blocks x $runs runs (alternating)  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %12s %12s\n' "" "best ms" "median ms" breakpad "$(best "$tmp/bp")" "$(median "$tmp/bp")" \
  ours "$(best "$tmp/ours")" "$(median "$tmp/ours")"
awk -v bb="$(best "$tmp/bp")" -v ob="$(best "$tmp/ours")" -v bm="$(median "$tmp/bp")" -v om="$(median "$tmp/ours")" \
  'BEGIN {printf "ratio breakpad/ours: best %.2fx  median %.2fx\n", bb/ob, bm/om}'
echo "per run, from each child's rusage (scripts/bench/runs, 200 runs each, in alternating blocks of 20):"
(cd "$here" && go run ./scripts/bench/runs -n 200 -block 20 "$OURS ${OURS_ARGS:-} $dump $*" "$BREAKPAD $dump $*")
