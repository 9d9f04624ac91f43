#!/bin/bash
# Every tiny dump side by side with Breakpad (issue 29's first target: ours
# <= 0.8x Breakpad's wall time on every tiny dump of the shared corpus and
# testdata, with and without symbols, median of paired runs).
#
# A dump is tiny below MAX bytes (default 200 KB). Each dump runs twice:
# without symbols and with its corpus's symbol directory. Each case times
# `minidump_stackwalk -m` and our `-m` with scripts/bench/runs: RUNS runs of
# each (default 20) in alternating blocks of 10, stdout and stderr of both
# to /dev/null, wall and CPU (user+sys, all threads) from each child's
# rusage. Our symbol index goes to a fresh directory in $tmp, built by a
# first, untimed run, so the timed runs are second runs (a user's steady
# state; docs/performance.md has the first run's cost).
#
# Prints one line per case (medians in ms, ours / Breakpad for wall and
# CPU), then the median and worst ratio and how many cases meet 0.8x, with
# the load average before and after. With -floor a Go "hello world" built
# here runs beside each case: a Go program cannot start faster than it, so
# its ratio is the best any Go binary can reach on that case.
#
#   usage: scripts/bench/tiny.sh [-n RUNS] [-max BYTES] [-floor] [-only REGEXP]
#   e.g.   scripts/bench/tiny.sh -n 40 -floor
#
# Environment: OURS, BREAKPAD as for side-by-side.sh (common.sh).
set -euo pipefail
runs=20
max=204800
floor=0
only=.
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs=$2; shift 2 ;;
    -max) max=$2; shift 2 ;;
    -floor) floor=1; shift ;;
    -only) only=$2; shift 2 ;;
    *) sed -n 2,25p "$0" >&2; exit 2 ;;
  esac
done
. "$(dirname "$0")/common.sh"
[ -x "$BREAKPAD" ] || { echo "no Breakpad binary at $BREAKPAD" >&2; exit 1; }
(cd "$here" && go build -o "$tmp/runs" ./scripts/bench/runs)
if [ "$floor" = 1 ]; then
  mkdir -p "$tmp/hello"
  printf 'package main\n\nimport "os"\n\nfunc main() { os.Stdout.WriteString("hello\\n") }\n' > "$tmp/hello/main.go"
  # the repo's go version, so that both start with the same runtime defaults (GODEBUG)
  printf 'module hello\n\ngo %s\n' "$(awk '$1 == "go" {print $2}' "$here/go.mod")" > "$tmp/hello/go.mod"
  (cd "$tmp/hello" && CGO_ENABLED=0 go build -o "$tmp/hello.linked" . && cp "$tmp/hello.linked" "$tmp/bin/hello")
fi
shared=$here/../shared/corpus
# dump directory, then the symbol directory of its dumps
pairs=(
  "$here/testdata/dumps" "$here/testdata/symbols"
  "$shared/breakpad/dumps" "$shared/breakpad/symbols"
  "$shared/breakpad-generated/dumps" "$shared/breakpad-generated/symbols"
  "$shared/rust-minidump/testdata" "$shared/rust-minidump/testdata/symbols"
)
index=$tmp/index
load0=$(cut -d' ' -f1-3 /proc/loadavg)
: > "$tmp/results"
head=
if [ "$floor" = 1 ]; then head='   floor'; fi
printf '%-52s %9s %9s %7s %7s%s\n' case "bp ms" "ours ms" wall cpu "$head"
for ((p = 0; p < ${#pairs[@]}; p += 2)); do
  dir=${pairs[p]} syms=${pairs[p+1]}
  [ -d "$dir" ] || { echo "skipped (absent): $dir" >&2; continue; }
  for dump in "$dir"/*.dmp; do
    [ "$(stat -c %s "$dump")" -lt "$max" ] || continue
    for withsyms in no yes; do
      sym=() suffix=
      if [ "$withsyms" = yes ]; then sym=("$syms") suffix=' +syms'; fi
      name="$(basename "$(dirname "$dump")")/$(basename "$dump")$suffix"
      [[ $name =~ $only ]] || continue
      "$OURS" -m --index-dir "$index" "$dump" "${sym[@]}" >/dev/null 2>&1 || true
      lines=("$BREAKPAD -m $dump ${sym[*]}" "$OURS -m --index-dir $index $dump ${sym[*]}")
      if [ "$floor" = 1 ]; then lines+=("$tmp/bin/hello"); fi
      "$tmp/runs" -n "$runs" -block 10 "${lines[@]}" > "$tmp/out"
      awk -v name="$name" -v floor="$floor" '
        /^#/ { split($2, w, "/"); split($3, c, "/"); wall[$1] = w[3]; cpu[$1] = c[3] }
        END {
          fl = floor == 1 ? sprintf(" %7.2f", wall["#3"] / wall["#1"]) : ""
          printf "%-52s %9.2f %9.2f %7.2f %7.2f%s\n", name, wall["#1"], wall["#2"],
            wall["#2"] / wall["#1"], cpu["#2"] / cpu["#1"], fl
        }' "$tmp/out" | tee -a "$tmp/results"
    done
  done
done
echo "load average: before $load0, after $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v floor="$floor" '{ print $(NF - (floor ? 2 : 1)) }' "$tmp/results" | sort -n |
  awk '{ r[NR] = $1; if ($1 <= 0.8) met++ } END {
    printf "%d cases, ours / Breakpad wall (median of each case): median %.2fx, worst %.2fx; <= 0.8x in %d of %d\n",
      NR, r[int((NR + 1) / 2)], r[NR], met, NR }'
