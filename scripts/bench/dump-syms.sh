#!/bin/bash
# Runs our dump_syms (cmd/dump_syms) and Google's dump_syms on the same ELF
# file, interleaved, and prints the median wall time and peak RSS of each
# and their ratios (Google / ours). First checks that our -breakpad-compat
# output equals Google's byte for byte.
#
#   usage: scripts/bench/dump-syms.sh [-n RUNS] [-f "FLAGS"] FILE [DEBUG_DIR]
#
# FLAGS are given to both (e.g. "-d -m"). Environment: GOOGLE (default:
# dump_syms in $BREAKPAD_ORACLE_DIR, else in the test cache,
# ${XDG_CACHE_HOME:-$HOME/.cache}/minidump-stackwalk-ci/minidump-0.26.0/package/bin/linux-x64).
# Needs GNU time (/usr/bin/time). Output goes to /dev/null; one untimed
# warm-up run of each fills the page cache.
set -euo pipefail
runs=11
flags=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs=$2; shift 2 ;;
    -f) flags=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { sed -n 2,13p "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd "$here" && go build -o "$tmp/ours" ./cmd/dump_syms)
dir=${BREAKPAD_ORACLE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/minidump-stackwalk-ci/minidump-0.26.0/package/bin/linux-x64}
GOOGLE=${GOOGLE:-$dir/dump_syms}
[ -x /usr/bin/time ] || { echo "need /usr/bin/time (apt-get install time)" >&2; exit 1; }
[ -x "$GOOGLE" ] || { echo "no Google dump_syms at $GOOGLE" >&2; exit 1; }
# shellcheck disable=SC2086
"$GOOGLE" $flags "$@" >"$tmp/google.sym" 2>/dev/null
# shellcheck disable=SC2086
"$tmp/ours" -breakpad-compat $flags "$@" >"$tmp/ours.sym"
if cmp -s "$tmp/google.sym" "$tmp/ours.sym"; then
  echo "outputs: byte-identical with -breakpad-compat ($(wc -l <"$tmp/ours.sym") lines)"
else
  echo "outputs: DIFFER with -breakpad-compat:"; diff "$tmp/google.sym" "$tmp/ours.sym" | head -5
fi
one() { # name binary -> appends "wall rss" to $tmp/name
  local name=$1 bin=$2; shift 2
  # shellcheck disable=SC2086
  /usr/bin/time -f "%e %M" -o "$tmp/t" "$bin" $flags "$@" >/dev/null 2>/dev/null || true
  cat "$tmp/t" >>"$tmp/$name"
}
one warm "$tmp/ours" "$@"; one warm "$GOOGLE" "$@"
for ((i = 0; i < runs; i++)); do
  one ours.runs "$tmp/ours" "$@"
  one google.runs "$GOOGLE" "$@"
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ow=$(cut -d' ' -f1 "$tmp/ours.runs" | median); orss=$(cut -d' ' -f2 "$tmp/ours.runs" | median)
gw=$(cut -d' ' -f1 "$tmp/google.runs" | median); grss=$(cut -d' ' -f2 "$tmp/google.runs" | median)
echo "google: wall ${gw}s, RSS ${grss} KiB"
echo "ours:   wall ${ow}s, RSS ${orss} KiB"
awk -v gw="$gw" -v ow="$ow" -v gr="$grss" -v or="$orss" 'BEGIN {
  printf "ratio (google/ours): wall %.2fx, RSS %.2fx\n", (ow > 0 ? gw / ow : 0), (or > 0 ? gr / or : 0) }'
