package corpus

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// RepoRoot returns the directory holding go.mod, searching upward from the
// working directory (go test runs in the package directory).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// Shared returns ../shared/<elem...> relative to the repository root, or
// skips t when that path does not exist.
func Shared(t testing.TB, elem ...string) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Skipf("shared corpus: cannot find repository root: %v", err)
	}
	p := filepath.Join(append([]string{root, "..", "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared corpus not present at %s (conformance test skipped): %v", p, err)
	}
	return p
}

// TestCacheDir is the directory .ci/run fills with what the tests need from
// outside the repository (Breakpad's binaries, the perf corpus's symbols):
// minidump-stackwalk-ci under the user's cache directory ($XDG_CACHE_HOME,
// else ~/.cache), as .ci/run computes it. It may not exist.
func TestCacheDir() string {
	if dir := os.Getenv(envTestCache); dir != "" {
		return dir
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "minidump-stackwalk-ci")
}

// envTestCache pins TestCacheDir while RunWithPrivateUserCache has moved
// the user cache directory.
const envTestCache = "MINIDUMP_STACKWALK_TEST_CACHE"

// RunWithPrivateUserCache runs a package's tests (a TestMain's m.Run) with
// the user cache directory ($XDG_CACHE_HOME) pointed at a temporary
// directory, removed afterwards: the command's defaults (--index-dir,
// --symbols-cache) then never read or fill the user's own caches, in the
// test process or the commands it starts. TestCacheDir, where .ci/run put
// Breakpad's binaries and the perf symbols, still names the real one.
func RunWithPrivateUserCache(m *testing.M) int {
	if os.Getenv(envTestCache) == "" {
		if dir := TestCacheDir(); dir != "" {
			os.Setenv(envTestCache, dir)
		}
	}
	dir, err := os.MkdirTemp("", "minidump-stackwalk-cache")
	if err != nil {
		fmt.Fprintf(os.Stderr, "private user cache: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv("XDG_CACHE_HOME", dir)
	return m.Run()
}

// PerfSymbolsDir returns the symbol tree of ../shared/perf's dumps, made by
// perf/make-symbols.sh (not shipped): $LLVMCRASH_SYMS, else
// TestCacheDir()/llvmcrash-syms, where .ci/run makes it. The error says
// why it is absent.
func PerfSymbolsDir() (string, error) {
	syms := os.Getenv("LLVMCRASH_SYMS")
	if syms == "" {
		syms = filepath.Join(TestCacheDir(), "llvmcrash-syms")
	}
	if _, err := os.Stat(syms); err != nil {
		return "", fmt.Errorf("perf symbols not made (bash .ci/run makes them, or run ../shared/perf/make-symbols.sh %s): %w", syms, err)
	}
	return syms, nil
}

// PerfSymbols returns PerfSymbolsDir, or skips tb when it is absent.
func PerfSymbols(tb testing.TB) string {
	tb.Helper()
	syms, err := PerfSymbolsDir()
	if err != nil {
		tb.Skip(err)
	}
	return syms
}

// Testdata returns testdata/<elem...> under the repository root.
func Testdata(t testing.TB, elem ...string) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatalf("cannot find repository root: %v", err)
	}
	return filepath.Join(append([]string{root, "testdata"}, elem...)...)
}

// ReadZstd returns the decompressed contents of the zstd file at path (the
// cores and programs in testdata/cores are kept compressed), failing t on
// any error. Decompression is bounded to 256 MiB of window memory.
func ReadZstd(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(256<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	data, err := io.ReadAll(dec)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return data
}

// TestdataCore returns the ELF core testdata/cores/<name>.core.zst,
// decompressed.
func TestdataCore(t testing.TB, name string) []byte {
	t.Helper()
	return ReadZstd(t, Testdata(t, "cores", name+".core.zst"))
}

// CopyTestdata copies testdata/elem (a directory) into a new temporary
// directory, for a test that changes the files it reads.
func CopyTestdata(t *testing.T, elem string) string {
	t.Helper()
	src, dst := Testdata(t, elem), t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err == nil {
			err = os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dst, rel), data, 0o644)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// GrowPastReadWhole appends 2 MiB of zeros to the dump at path: the
// minidump reader maps only a file over 1 MiB (it reads a smaller one into
// memory, where truncating the file changes nothing).
func GrowPastReadWhole(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err == nil {
		err = os.Truncate(path, st.Size()+2<<20)
	}
	if err != nil {
		t.Fatal(err)
	}
}
