# Sourced by the bench scripts: a temporary directory removed on exit ($tmp),
# our binary ($OURS, else built from ./cmd/minidump-stackwalk into $tmp) and
# Breakpad's ($BREAKPAD, else minidump_stackwalk in $BREAKPAD_ORACLE_DIR, else
# in /tmp/oracle/package/bin/linux-x64, as internal/oracle finds it).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ -z "${OURS:-}" ]; then
  (cd "$here" && go build -o "$tmp/ours" ./cmd/minidump-stackwalk)
  OURS=$tmp/ours
fi
BREAKPAD=${BREAKPAD:-${BREAKPAD_ORACLE_DIR:-/tmp/oracle/package/bin/linux-x64}/minidump_stackwalk}
