#!/bin/bash
# Batch comparison: every dump in DUMPDIR, one process per dump (as a crash
# server runs minidump_stackwalk), our CLI and Breakpad's alternating dump by
# dump. Prints the total wall time of each, the largest peak RSS, and ratios.
#
#   usage: scripts/bench/batch.sh [-m] DUMPDIR SYMPATH...
#   e.g.   scripts/bench/batch.sh ../shared/perf/dumps /tmp/llvmsyms
#
# Environment: OURS, BREAKPAD as for side-by-side.sh; OURS_ARGS, extra
# arguments for our CLI only (e.g. OURS_ARGS="--index-dir DIR" or --no-index).
set -euo pipefail
flags=()
if [ "${1:-}" = -m ]; then flags=(-m); shift; fi
[ $# -ge 2 ] || { sed -n 2,11p "$0" >&2; exit 2; }
dir=$1; shift
. "$(dirname "$0")/common.sh"
now() { date +%s.%N; }
ours=0; bp=0; orss=0; brss=0; n=0
for d in "$dir"/*.dmp; do
  t0=$(now); /usr/bin/time -f %M -o "$tmp/r" "$OURS" ${OURS_ARGS:-} "${flags[@]}" "$d" "$@" >/dev/null 2>&1 || true; t1=$(now)
  ours=$(echo "$ours + $t1 - $t0" | bc); r=$(tail -1 "$tmp/r"); [ "$r" -gt "$orss" ] && orss=$r
  t0=$(now); /usr/bin/time -f %M -o "$tmp/r" "$BREAKPAD" "${flags[@]}" "$d" "$@" >/dev/null 2>&1 || true; t1=$(now)
  bp=$(echo "$bp + $t1 - $t0" | bc); r=$(tail -1 "$tmp/r"); [ "$r" -gt "$brss" ] && brss=$r
  n=$((n + 1))
done
printf 'dumps: %d in %s  flags: %s\n' "$n" "$dir" "${flags[*]:-(none)}"
printf 'breakpad: %.2f s total, largest peak RSS %d KiB\n' "$bp" "$brss"
printf 'ours:     %.2f s total, largest peak RSS %d KiB\n' "$ours" "$orss"
echo "ratio breakpad/ours: wall $(echo "scale=1; $bp / $ours" | bc)x  RSS $(echo "scale=1; $brss / $orss" | bc)x"
