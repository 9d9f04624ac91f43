#!/bin/bash
# Runs our minidump-stackwalk and Breakpad's minidump_stackwalk on the same
# dump and symbols, interleaved, and prints the median wall time and peak RSS
# of each and their ratios (Breakpad / ours).
#
#   usage: scripts/bench/side-by-side.sh [-m] [-n RUNS] DUMP SYMPATH...
#
# Environment: OURS (our binary; default: built from ./cmd/minidump-stackwalk
# into a temp dir), BREAKPAD (default: minidump_stackwalk in
# $BREAKPAD_ORACLE_DIR, else the test cache: common.sh); OURS_ARGS,
# extra arguments for our CLI only (--no-index for the in-memory index; by
# default our CLI uses its --index-dir, which the warm-up run fills).
# Needs GNU time (/usr/bin/time; apt-get install time). Output goes to /dev/null;
# one untimed warm-up run of each fills the page cache.
set -euo pipefail
runs=11
flags=()
while [ $# -gt 0 ]; do
  case "$1" in
    -m) flags+=(-m); shift ;;
    -n) runs=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { sed -n 2,14p "$0" >&2; exit 2; }
dump=$1; shift
. "$(dirname "$0")/common.sh"
[ -x /usr/bin/time ] || { echo "need /usr/bin/time (apt-get install time)" >&2; exit 1; }
[ -x "$BREAKPAD" ] || { echo "no Breakpad binary at $BREAKPAD" >&2; exit 1; }

one() { # name binary -> appends "wall rss user sys" to $tmp/name
  local name=$1 bin=$2; shift 2
  /usr/bin/time -f "%e %M %U %S" -o "$tmp/t" "$bin" "${flags[@]}" "$dump" "$@" >/dev/null 2>"$tmp/err.$name" || true
  cat "$tmp/t" >> "$tmp/$name"
}
one warm "$OURS" ${OURS_ARGS:-} "$@"; one warm "$BREAKPAD" "$@"; : > "$tmp/ours.runs"; : > "$tmp/bp.runs"
for ((i = 0; i < runs; i++)); do
  one ours.runs "$OURS" ${OURS_ARGS:-} "$@"
  one bp.runs "$BREAKPAD" "$@"
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ow=$(cut -d' ' -f1 "$tmp/ours.runs" | median); orss=$(cut -d' ' -f2 "$tmp/ours.runs" | median)
bw=$(cut -d' ' -f1 "$tmp/bp.runs" | median); brss=$(cut -d' ' -f2 "$tmp/bp.runs" | median)
ocpu=$(awk '{print $3+$4}' "$tmp/ours.runs" | median); bcpu=$(awk '{print $3+$4}' "$tmp/bp.runs" | median)
echo "dump: $dump  symbols: $*  flags: ${flags[*]:-(none)}  runs: $runs (interleaved, medians)"
printf '%-10s %10s %10s %14s\n' "" "wall s" "cpu s" "peak RSS KiB"
printf '%-10s %10s %10s %14s\n' breakpad "$bw" "$bcpu" "$brss" ours "$ow" "$ocpu" "$orss"
awk -v bw="$bw" -v ow="$ow" -v bc="$bcpu" -v oc="$ocpu" -v br="$brss" -v or="$orss" 'BEGIN {
  printf "ratio breakpad/ours: wall %.1fx  cpu %.1fx  peak RSS %.1fx\n", bw/(ow>0?ow:0.001), bc/(oc>0?oc:0.001), br/or }'
echo "ours wall:     $(cut -d' ' -f1 "$tmp/ours.runs" | tr '\n' ' ')"
echo "breakpad wall: $(cut -d' ' -f1 "$tmp/bp.runs" | tr '\n' ' ')"
