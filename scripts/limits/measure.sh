#!/bin/sh
# measure.sh BIN ARGS...: run BIN ARGS under /usr/bin/time -v and print
# wall time, peak RSS, exit status, output size and stderr lines
# (docs/limits.md).
bin=$1; shift
out=$(mktemp)
/usr/bin/time -v -o "$out.time" "$bin" "$@" >"$out" 2>"$out.err"
rc=$?
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out.time")
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out.time")
printf '%s\twall %s\tpeak RSS %s KiB\texit %s\tstdout %s bytes\tstderr %s lines\n' \
	"$*" "$wall" "$rss" "$rc" "$(wc -c <"$out")" "$(wc -l <"$out.err")"
rm -f "$out" "$out.err" "$out.time"
