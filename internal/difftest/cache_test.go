package difftest

import (
	"os"
	"testing"
)

// TestMain points the user cache directory at a temporary directory for
// the CLI processes the tests start (they inherit the environment), so that
// their default --index-dir and --symbols-cache stay out of the user's
// own caches.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "difftest-cache")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
