#!/bin/bash
# Batch throughput with warm symbols (issue 29): COPIES copies of every dump
# in DUMPDIR (hard links, else copies, in a temporary directory), a first
# untimed `batch` run that builds the persistent index, then RUNS rounds of
# `batch -j 1` and `batch -j 2` alternating, stdout and stderr to
# /dev/null. Prints the median dumps/s of each, their wall ratio, the CPU
# (user + system) per dump and the per-CPU-second ratio, with the load
# average before each round.
#
# Then Breakpad's way, one `minidump_stackwalk -m DUMP SYMDIR` process per
# dump with `xargs -P 2`, over BP_FILES of the copies (default 20: at about
# 5 s of CPU per dump with libLLVM's 41 MB .sym, all 2,000 would take hours;
# BP_FILES=all runs them all), alternating with our `batch -j 2` over the
# same files; its dumps/s and CPU per dump against ours.
#
#   usage: scripts/bench/batch-warm.sh [DUMPDIR [SYMDIR [COPIES [RUNS]]]]
#   defaults: ../shared/perf/dumps, $LLVMCRASH_SYMS (else the CI cache's
#   llvmcrash-syms), 100 copies (2,000 dumps), 5 runs.
# Environment: OURS, BREAKPAD as for side-by-side.sh (common.sh); BP_FILES.
set -euo pipefail
. "$(dirname "$0")/common.sh"
dumps=${1:-$here/../shared/perf/dumps}
syms=${2:-${LLVMCRASH_SYMS:-${XDG_CACHE_HOME:-$HOME/.cache}/minidump-stackwalk-ci/llvmcrash-syms}}
copies=${3:-100}
runs=${4:-5}
[[ -d $dumps && -d $syms ]] || { sed -n 2,20p "$0" >&2; exit 2; }

mkdir -p "$tmp/copies" "$tmp/index"
mapfile -t files < <(find "$dumps" -maxdepth 1 -type f | sort)
for ((i = 0; i < copies; i++)); do
  for f in "${files[@]}"; do
    c=$tmp/copies/c$i-$(basename "$f")
    ln "$f" "$c" 2>/dev/null || cp "$f" "$c"
  done
done
n=$((copies * ${#files[@]}))
batch() { # JOBS DIR: prints "wall user+sys"
  /usr/bin/time -f '%e %U %S' -o "$tmp/t" "$OURS" batch -j "$1" --progress never \
    --index-dir "$tmp/index" --symbols-path "$syms" "$2" >/dev/null 2>&1 || true
  awk '{print $1, $2 + $3}' "$tmp/t"
}
load() { cut -d' ' -f1-3 /proc/loadavg; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

batch 2 "$tmp/copies" >/dev/null # builds the index, fills the page cache
echo "$n dumps ($copies copies of ${#files[@]} in $dumps), symbols $syms, $(nproc) CPUs"
: >"$tmp/j1"; : >"$tmp/j2"
for ((r = 1; r <= runs; r++)); do
  l=$(load)
  a=$(batch 1 "$tmp/copies"); b=$(batch 2 "$tmp/copies")
  echo "$a" >>"$tmp/j1"; echo "$b" >>"$tmp/j2"
  echo "round $r (load $l): -j 1 ${a% *} s wall ${a#* } s CPU; -j 2 ${b% *} s wall ${b#* } s CPU"
done
w1=$(cut -d' ' -f1 "$tmp/j1" | median); c1=$(cut -d' ' -f2 "$tmp/j1" | median)
w2=$(cut -d' ' -f1 "$tmp/j2" | median); c2=$(cut -d' ' -f2 "$tmp/j2" | median)
awk -v n="$n" -v w1="$w1" -v c1="$c1" -v w2="$w2" -v c2="$c2" -v l="$(load)" 'BEGIN {
  printf "batch -j 1: %.0f dumps/s, %.3f ms CPU per dump (median wall %.2f s)\n", n / w1, 1000 * c1 / n, w1
  printf "batch -j 2: %.0f dumps/s, %.3f ms CPU per dump (median wall %.2f s)\n", n / w2, 1000 * c2 / n, w2
  printf "-j 2 / -j 1: %.2fx wall, %.2fx per CPU second (load now %s)\n", w1 / w2, c1 / c2, l }'

[[ -x $BREAKPAD ]] || { echo "no Breakpad minidump_stackwalk at $BREAKPAD: skipping its run" >&2; exit 0; }
mkdir -p "$tmp/bp"
k=0
for c in "$tmp"/copies/*; do
  [[ ${BP_FILES:-20} != all && $k -ge ${BP_FILES:-20} ]] && break
  ln "$c" "$tmp/bp/" 2>/dev/null || cp "$c" "$tmp/bp/"
  k=$((k + 1))
done
breakpad() {
  /usr/bin/time -f '%e %U %S' -o "$tmp/t" sh -c 'find "$1" -type f -print0 | xargs -0 -P 2 -I{} "$2" -m {} "$3" >/dev/null 2>&1' \
    sh "$tmp/bp" "$BREAKPAD" "$syms" || true
  awk '{print $1, $2 + $3}' "$tmp/t"
}
l=$(load)
p=$(breakpad); o=$(batch 2 "$tmp/bp")
awk -v k="$k" -v p="$p" -v o="$o" -v l="$l" 'BEGIN {
  split(p, a, " "); split(o, b, " ")
  printf "%d dumps (load %s): Breakpad xargs -P 2: %.2f dumps/s, %.0f ms CPU per dump; batch -j 2: %.0f dumps/s, %.2f ms CPU per dump\n", k, l, k / a[1], 1000 * a[2] / k, k / b[1], 1000 * b[2] / k
  printf "ours / Breakpad: %.0fx dumps/s, %.0fx per CPU second\n", a[1] / b[1], a[2] / b[2] }'
