#!/bin/bash
# The persistent symbol index side by side with Breakpad: our CLI with
# --index-dir and Breakpad's minidump_stackwalk on the same dump and
# symbols, interleaved run by run, with the median wall time, CPU time and
# peak RSS (GNU time) of each and their ratios (Breakpad / ours).
#
#   usage: scripts/bench/index.sh [-m] [-n RUNS] [-c FILE] MODE DUMP SYMPATH...
#   MODE   first: the index directory is emptied before each of our runs
#                 (every run builds the index);
#          warm:  the index is built once before the timed runs;
#          cold:  as warm, and before every run of either program the page
#                 cache of the dump, the symbol paths and the index directory
#                 is dropped (GNU dd iflag=nocache, file by file: nothing else
#                 on the machine is evicted).
#
#   -c FILE  also time `cat FILE >/dev/null` in each round (after one
#          untimed cat, so FILE is in the page cache) and print our ratio to
#          it: the first run's cost against reading the symbol file.
#
#   e.g.   scripts/bench/index.sh -m -n 3 -c /tmp/stress/node/DFF2EAEB4D36EB5E7096F0F7722A69EE0/node.sym first \
#            ../shared/corpus/breakpad-generated/stress/dumps/linux-amd64-node-live.dmp \
#            /tmp/stress ../shared/corpus/breakpad-generated/symbols
#
# Environment: OURS, BREAKPAD as for side-by-side.sh. In first and warm
# modes both programs run once untimed first, to fill the page cache.
set -euo pipefail
runs=5
flags=()
catfile=
while [ $# -gt 0 ]; do
  case "$1" in
    -m) flags+=(-m); shift ;;
    -n) runs=$2; shift 2 ;;
    -c) catfile=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -ge 3 ] || { sed -n 2,26p "$0" >&2; exit 2; }
mode=$1; dump=$2; shift 2
case "$mode" in first|warm|cold) ;; *) sed -n 2,26p "$0" >&2; exit 2 ;; esac
. "$(dirname "$0")/common.sh"
[ -x /usr/bin/time ] || { echo "need /usr/bin/time (apt-get install time)" >&2; exit 1; }
[ -x "$BREAKPAD" ] || { echo "no Breakpad binary at $BREAKPAD" >&2; exit 1; }
index=$tmp/index

evict() { # drop the page cache of every file of the run
  find "$dump" "$@" "$index" -type f -print0 2>/dev/null |
    xargs -0 -r -I{} dd if={} iflag=nocache count=0 status=none
}
one() { # name binary args... -> appends "wall rss user sys" to $tmp/name
  local name=$1 bin=$2; shift 2
  /usr/bin/time -f "%e %M %U %S" -o "$tmp/t" "$bin" "$@" >/dev/null 2>"$tmp/err.$name" || true
  cat "$tmp/t" >> "$tmp/$name"
}
ours() { one "$1" "$OURS" --index-dir "$index" "${flags[@]}" "$dump" "${@:2}"; }
bp() { one "$1" "$BREAKPAD" "${flags[@]}" "$dump" "${@:2}"; }
ours warmup "$@"; [ "$mode" = cold ] || bp warmup "$@"
[ -n "$catfile" ] && cat "$catfile" >/dev/null
: > "$tmp/ours.runs"; : > "$tmp/bp.runs"; : > "$tmp/cat.runs"
for ((i = 0; i < runs; i++)); do
  case "$mode" in
    first) rm -rf "$index" ;;
    cold) evict "$@" ;;
  esac
  ours ours.runs "$@"
  [ "$mode" = cold ] && evict "$@"
  bp bp.runs "$@"
  [ -n "$catfile" ] && one cat.runs cat "$catfile"
done
[ -s "$tmp/err.ours.runs" ] && { echo "our stderr:"; cat "$tmp/err.ours.runs"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ow=$(cut -d' ' -f1 "$tmp/ours.runs" | median); orss=$(cut -d' ' -f2 "$tmp/ours.runs" | median)
bw=$(cut -d' ' -f1 "$tmp/bp.runs" | median); brss=$(cut -d' ' -f2 "$tmp/bp.runs" | median)
ocpu=$(awk '{print $3+$4}' "$tmp/ours.runs" | median); bcpu=$(awk '{print $3+$4}' "$tmp/bp.runs" | median)
echo "mode: $mode  dump: $dump  symbols: $*  flags: ${flags[*]:-(none)}  runs: $runs (interleaved, medians)"
echo "index: $(du -sh "$index" | cut -f1)  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %10s %10s %14s\n' "" "wall s" "cpu s" "peak RSS KiB"
printf '%-10s %10s %10s %14s\n' breakpad "$bw" "$bcpu" "$brss" ours "$ow" "$ocpu" "$orss"
awk -v bw="$bw" -v ow="$ow" -v bc="$bcpu" -v oc="$ocpu" -v br="$brss" -v or="$orss" 'BEGIN {
  printf "ratio breakpad/ours: wall %.1fx  cpu %.1fx  peak RSS %.1fx\n", bw/(ow>0?ow:0.001), bc/(oc>0?oc:0.001), br/or }'
if [ -n "$catfile" ]; then
  cw=$(cut -d' ' -f1 "$tmp/cat.runs" | median); ccpu=$(awk '{print $3+$4}' "$tmp/cat.runs" | median)
  printf '%-10s %10s %10s   (cat %s)\n' cat "$cw" "$ccpu" "$catfile"
  awk -v cw="$cw" -v ow="$ow" -v cc="$ccpu" -v oc="$ocpu" 'BEGIN {
    printf "ratio ours/cat: wall %.1fx  cpu %.1fx\n", ow/(cw>0?cw:0.01), oc/(cc>0?cc:0.01) }'
fi
echo "ours wall:     $(cut -d' ' -f1 "$tmp/ours.runs" | tr '\n' ' ')"
echo "breakpad wall: $(cut -d' ' -f1 "$tmp/bp.runs" | tr '\n' ' ')"
