package difftest

import (
	"os"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// TestMain keeps the default --index-dir and --symbols-cache of the CLI
// processes the tests start (they inherit the environment) out of the
// user's own caches (corpus.RunWithPrivateUserCache).
func TestMain(m *testing.M) {
	os.Exit(corpus.RunWithPrivateUserCache(m))
}
