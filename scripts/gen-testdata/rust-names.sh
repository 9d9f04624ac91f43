#!/bin/bash
# Regenerates internal/demangle/testdata/rust-names.tsv.gz: every Rust symbol
# (legacy `_ZN…17h<hash>E` and v0 `_R…`) of src/rust/main.rs built with the
# installed rustc in eight ways (debug and release, panic=unwind and abort,
# legacy and v0 mangling; the standard library is always legacy), deduplicated,
# each beside GNU c++filt's output. The demangle tests compare with it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/../../internal/demangle/testdata/rust-names.tsv.gz}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v rustc >/dev/null && command -v c++filt >/dev/null && command -v nm >/dev/null
for opt in 0 3; do for panic in unwind abort; do for mangling in legacy v0; do
	# legacy is rustc's default (naming it takes -Z on stable rustc)
	flags=(); [ $mangling = v0 ] && flags=(-C symbol-mangling-version=v0)
	rustc -g -C opt-level=$opt -C panic=$panic "${flags[@]}" \
		-o "$work/bin-$opt-$panic-$mangling" "$here/src/rust/main.rs"
	nm "$work/bin-$opt-$panic-$mangling" | awk '{print $NF}' >>"$work/all"
done; done; done
grep -E '^(_R|_ZN.*17h[0-9a-f]{16}E)' "$work/all" | LC_ALL=C sort -u >"$work/names"
c++filt <"$work/names" >"$work/filt"
{
	echo "# $(rustc --version); $(c++filt --version | head -1)"
	paste "$work/names" "$work/filt"
} | gzip -9n >"$out"
echo "wrote $out: $(wc -l <"$work/names") names"
