# Sourced by the bench scripts: a temporary directory removed on exit ($tmp),
# our binary ($OURS, else built from ./cmd/minidump-stackwalk into $tmp) and
# Breakpad's ($BREAKPAD, else minidump_stackwalk in $BREAKPAD_ORACLE_DIR, else
# in the test cache, ${XDG_CACHE_HOME:-$HOME/.cache}/minidump-stackwalk-ci/
# minidump-0.26.0/package/bin/linux-x64, as internal/testkit/oracle finds it).
#
# Our binary is built with CGO_ENABLED=0: a static binary starts without the
# dynamic loader and libc's start-up (see docs/performance.md, "Startup").
#
# Both binaries are then copied into $tmp/bin and timed there, so that their
# files are in the page cache the same way, as an installer leaves them
# (written with write(2)). The Go linker writes its output through a shared
# mapping, and a binary fresh from it starts about 1 ms slower until its pages
# leave the page cache (docs/performance.md, "Startup"), which would time the
# way the file was written rather than the program.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ -z "${OURS:-}" ]; then
  (cd "$here" && CGO_ENABLED=0 go build -o "$tmp/ours" ./cmd/minidump-stackwalk)
  OURS=$tmp/ours
fi
testcache=${XDG_CACHE_HOME:-$HOME/.cache}/minidump-stackwalk-ci
BREAKPAD=${BREAKPAD:-${BREAKPAD_ORACLE_DIR:-$testcache/minidump-0.26.0/package/bin/linux-x64}/minidump_stackwalk}
mkdir -p "$tmp/bin"
cp "$OURS" "$tmp/bin/minidump-stackwalk" && OURS=$tmp/bin/minidump-stackwalk
if [ -x "$BREAKPAD" ]; then
  cp "$BREAKPAD" "$tmp/bin/minidump_stackwalk" && BREAKPAD=$tmp/bin/minidump_stackwalk
fi
