package oracle

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// The reference binaries.
const (
	Stackwalk = "minidump_stackwalk"
	Dump      = "minidump_dump"
	DumpSyms  = "dump_syms"
)

// EnvDir names the environment variable that overrides DefaultDir.
const EnvDir = "BREAKPAD_ORACLE_DIR"

// installHint tells a reader of a skip message how to get the binaries.
const installHint = "bash .ci/run installs the npm package minidump@0.26.0 there; or set " + EnvDir +
	" to the bin/linux-x64 directory of that package unpacked elsewhere"

// DefaultDir is where .ci/run unpacks the npm package: in the tests' cache
// directory (corpus.TestCacheDir), never a fixed path another tool may fill.
func DefaultDir() string {
	return filepath.Join(corpus.TestCacheDir(), "minidump-0.26.0", "package", "bin", "linux-x64")
}

// Dir returns the directory holding the binaries: $BREAKPAD_ORACLE_DIR, else
// DefaultDir. It may not exist.
func Dir() string {
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	return DefaultDir()
}

// Lookup returns the path of the named binary and whether it is installed
// (a regular, executable file).
func Lookup(name string) (string, bool) {
	p := filepath.Join(Dir(), name)
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return p, false
	}
	return p, true
}

// Require returns the path of the named binary, or skips the test with a
// message saying where it was looked for and how to install it.
func Require(tb testing.TB, name string) string {
	tb.Helper()
	p, ok := Lookup(name)
	if !ok {
		tb.Skipf("Breakpad's %s not found at %s: %s", name, p, installHint)
	}
	return p
}
