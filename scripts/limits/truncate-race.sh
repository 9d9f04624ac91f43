#!/bin/sh
# truncate-race.sh BIN DIR: batch over 300 copies of a dump while another
# process truncates them and the symbol file to half their size and writes
# them back, as a crash uploader or a symbol store rewriting files in place
# would (docs/limits.md, issue 26 item 1). Prints the batch's exit status,
# its peak RSS, whether the summary was written, and how many dumps failed
# on a file that changed while mapped. Before mapfault, the batch died of
# SIGBUS ("fatal error: fault", exit 2) with no summary.
bin=$1 dir=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$dir" && mkdir -p "$dir/dumps" && cp -r "$root/testdata/symbols" "$dir/symbols"
for i in $(seq 300); do cp "$root/testdata/dumps/amd64-fp.dmp" "$dir/dumps/$i.dmp"; done
sym=$dir/symbols/crashdemo/D83F6001E70265BE29AD592DD70C2F4F0/crashdemo.sym
cp "$sym" "$dir/sym.orig"
size=$(wc -c <"$root/testdata/dumps/amd64-fp.dmp")
(
	while :; do
		for i in $(seq 300); do
			f=$dir/dumps/$i.dmp
			truncate -s $((size / 2)) "$f" 2>/dev/null
			truncate -s $((size / 3)) "$sym"
			cat "$root/testdata/dumps/amd64-fp.dmp" >"$f"
			cat "$dir/sym.orig" >"$sym"
		done
	done
) &
loop=$!
/usr/bin/time -v -o "$dir/time" "$bin" batch -j 2 --progress never --symbols-path "$dir/symbols" \
	--summary "$dir/summary.json" "$dir/dumps" >"$dir/out.jsonl" 2>"$dir/err"
rc=$?
kill $loop
wait $loop 2>/dev/null
printf 'exit %s\tpeak RSS %s KiB\twall %s\tsummary %s\tchanged-while-mapped %s\tfatal %s\n' "$rc" \
	"$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time")" \
	"$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time")" \
	"$(test -s "$dir/summary.json" && echo written || echo missing)" \
	"$(grep -c 'memory-mapped file changed' "$dir/out.jsonl")" \
	"$(grep -c 'fatal error' "$dir/err")"
