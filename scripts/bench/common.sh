# Sourced by the bench scripts: a temporary directory removed on exit ($tmp),
# our binary ($OURS, else built from ./cmd/minidump-stackwalk into $tmp) and
# Breakpad's ($BREAKPAD, else minidump_stackwalk in $BREAKPAD_ORACLE_DIR, else
# in the test cache, ${XDG_CACHE_HOME:-$HOME/.cache}/minidump-stackwalk-ci/
# minidump-0.26.0/package/bin/linux-x64, as internal/oracle finds it).
#
# Our binary is built with CGO_ENABLED=0: a static binary starts without the
# dynamic loader and libc's start-up (see docs/performance.md, "Startup").
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ -z "${OURS:-}" ]; then
  (cd "$here" && CGO_ENABLED=0 go build -o "$tmp/ours" ./cmd/minidump-stackwalk)
  OURS=$tmp/ours
fi
testcache=${XDG_CACHE_HOME:-$HOME/.cache}/minidump-stackwalk-ci
BREAKPAD=${BREAKPAD:-${BREAKPAD_ORACLE_DIR:-$testcache/minidump-0.26.0/package/bin/linux-x64}/minidump_stackwalk}
