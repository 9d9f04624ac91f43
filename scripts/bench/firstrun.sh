#!/bin/bash
# The index pass of one large .sym, several builds paired: each build of
# scripts/bench/symload indexes FILE into an emptied index directory, in
# turn with the others and with `cat FILE >/dev/null`, N rounds; GNU time
# gives each run's wall time, CPU time (user + sys), peak RSS and page
# faults, and the load average is written beside each run. Then the median
# of each, and each build's ratio to cat.
#
#   usage: scripts/bench/firstrun.sh N FILE SYMLOAD...
#   e.g.   git archive main | tar -x -C /tmp/main-src
#          (cd /tmp/main-src && CGO_ENABLED=0 go build -o /tmp/symload-main ./scripts/bench/symload)
#          CGO_ENABLED=0 go build -o /tmp/symload-new ./scripts/bench/symload
#          scripts/bench/firstrun.sh 5 /tmp/stress/node/DFF2EAEB4D36EB5E7096F0F7722A69EE0/node.sym \
#            /tmp/symload-main /tmp/symload-new
#
# FILE is read once, untimed, first, so that every run finds it in the page
# cache, as cat does. Builds are told apart by their file names.
#
# With CLI set (the arguments of a walk: a dump and symbol directories,
# FILE among them), the builds are minidump-stackwalk binaries instead,
# each run as `BIN -m --index-dir DIR $CLI`, the first run of the CLI:
#   CLI="$D /tmp/stress ../shared/corpus/breakpad-generated/symbols" \
#     scripts/bench/firstrun.sh 5 $F /tmp/ours-main /tmp/ours-new
#
# Where the kernel reports free memory to a hypervisor (virtio-balloon's
# free page reporting, /sys/module/page_reporting), each line also gives
# the MiB reported since the previous run ended: memory handed back to the
# host costs much more at its next first touch (docs/performance.md, the
# first run after issue 29, eighth round), so a run after a large report
# is often a slow one. "-" where the kernel does not report. With PAUSE
# set (seconds), each run waits that long first, after emptying the index
# directory, so that the blocks freed before have time to be reported, as
# for a first run after an idle moment; the reported column tells whether
# they were.
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,34p "$0" >&2; exit 2; }
n=$1 file=$2; shift 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat "$file" >/dev/null
reported=/sys/module/page_reporting/parameters/reported_kib
reportedKiB() { if [ -r "$reported" ]; then cat "$reported"; else echo -; fi; }
rep0=$(reportedKiB)
for _ in $(seq "$n"); do
  for b in "$@" cat; do
    rm -rf "$tmp/idx"; mkdir "$tmp/idx"
    [ -z "${PAUSE:-}" ] || sleep "$PAUSE"
    if [ "$b" = cat ]; then cmd=(cat "$file")
    elif [ -n "${CLI:-}" ]; then read -ra args <<<"$CLI"; cmd=("$b" -m --index-dir "$tmp/idx" "${args[@]}")
    else cmd=("$b" -index "$tmp/idx" "$file"); fi
    /usr/bin/time -o "$tmp/time" -f "$(basename "$b") %e %U %S %M %R" "${cmd[@]}" >/dev/null 2>&1
    read -r load _ </proc/loadavg
    rep1=$(reportedKiB)
    awk -v l="$load" -v r0="$rep0" -v r1="$rep1" '{
      rep = r0 == "-" ? "-" : sprintf("%d", (r1 - r0) / 1024)
      printf "%-16s wall %6.2f s  cpu %6.2f s  rss %8d KiB  faults %7d  load %s  reported %s MiB\n", $1, $2, $3+$4, $5, $6, l, rep}' "$tmp/time" | tee -a "$tmp/runs"
    rep0=$rep1
  done
done
echo "medians ($n rounds):"
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
for b in "$@" cat; do
  name=$(basename "$b")
  col() { awk -v n="$name" -v c="$1" '$1 == n {print $c}' "$tmp/runs" | median; }
  printf '%-16s wall %s s  cpu %s s  faults %s\n' "$name" "$(col 3)" "$(col 6)" "$(col 12)" | tee -a "$tmp/med"
done
awk '$1 == "cat" {cw = $3; cc = $6} {nm[NR] = $1; w[NR] = $3; c[NR] = $6}
  END { for (i = 1; i <= NR; i++) if (nm[i] != "cat" && cw > 0 && cc > 0)
    printf "%-16s / cat: wall %.1fx  cpu %.1fx\n", nm[i], w[i] / cw, c[i] / cc }' "$tmp/med"
