#!/usr/bin/env bash
# samebytes.sh BIN OUTDIR: run a build of minidump-stackwalk over every dump
# of testdata and ../shared/corpus (and testdata's ELF cores) with a dozen
# flag sets, each with and without symbols, keeping each run's stdout,
# stderr and exit status under OUTDIR. A refactoring's before/after check:
#   go build -o /tmp/old ./cmd/minidump-stackwalk   # on the base commit
#   bash scripts/samebytes.sh /tmp/old /tmp/sb-old
#   go build -o /tmp/new ./cmd/minidump-stackwalk   # on the change
#   bash scripts/samebytes.sh /tmp/new /tmp/sb-new
#   diff -r /tmp/sb-old /tmp/sb-new && echo identical
# SAMEBYTES_FLAGSETS="0 2 5" runs only those flag sets (indexes into
# flagsets below), for a quicker check of what a change can touch.
# Symbols are indexed under OUTDIR/../samebytes-index (an index changes no
# output); no symbol server is asked.
set -euo pipefail
bin=$(realpath "$1") out=$2
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rm -rf "$out"
mkdir -p "$out"
out=$(realpath "$out")
index=$(dirname "$out")/samebytes-index

syms=(testdata/symbols)
for d in ../shared/corpus/breakpad/symbols ../shared/corpus/breakpad-generated/symbols \
	../shared/corpus/rust-minidump/testdata/symbols; do
	if [[ -d $d ]]; then syms+=("$d"); fi
done
flagsets=("" "-m" "-s" "-c" "-b" "-d" "-t 1" "--json" "--json --pretty"
	"--breakpad-compat" "-m --breakpad-compat" "--dump")

runs=0 nonzero=0
while read -r in; do
	for i in ${SAMEBYTES_FLAGSETS:-${!flagsets[@]}}; do
		for withsyms in n y; do
			# shellcheck disable=SC2206
			local_args=(${flagsets[$i]} --index-dir "$index" "$in")
			if [[ $withsyms == y ]]; then local_args+=("${syms[@]}"); fi
			name=$out/$(echo "$in" | tr / _).$i.$withsyms
			rc=0
			"$bin" "${local_args[@]}" >"$name.out" 2>"$name.err" || rc=$?
			echo "$rc" >"$name.rc"
			runs=$((runs + 1))
			if [[ $rc != 0 ]]; then nonzero=$((nonzero + 1)); fi
		done
	done
done < <(find testdata/dumps testdata/cores ../shared/corpus/breakpad/dumps \
	../shared/corpus/breakpad/microdumps ../shared/corpus/breakpad-generated/dumps \
	../shared/corpus/rust-minidump/testdata -type f \( -name '*.dmp' -o -name '*.core.zst' \) 2>/dev/null | sort)
echo "$runs runs, $nonzero with a non-zero exit status, in $out"
