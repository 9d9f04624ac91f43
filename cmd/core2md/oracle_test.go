package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The corpus in testdata/ (docs/testdata.md): dumps converted from real
// cores, with gdb's view of the same cores as the oracle.

// testdataDir is the corpus under test; TESTDATA_DIR points the tests at a
// freshly generated one (scripts/gen-testdata/gen.sh with OUT=...).
var testdataDir = func() string {
	if d := os.Getenv("TESTDATA_DIR"); d != "" {
		return d
	}
	return "../../testdata"
}()

// corpusCase is one line of testdata/cases.txt.
type corpusCase struct {
	Name, Arch, Case, Producer string
	Threads                    int
}

func readCases(t *testing.T) []corpusCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdataDir, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 5 {
			t.Fatalf("cases.txt: malformed line %q", line)
		}
		n, err := strconv.Atoi(f[4])
		if err != nil {
			t.Fatalf("cases.txt: %q: %v", line, err)
		}
		cases = append(cases, corpusCase{f[0], f[1], f[2], f[3], n})
	}
	return cases
}

// symFile is the part of a Breakpad .sym file the tests need: FUNC records
// (functions with debug information) by module-relative address.
type symFile struct {
	ID    string
	Funcs []symFunc
}

type symFunc struct {
	Addr, Size uint64
	Name       string
}

func readSym(t *testing.T, path string) *symFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := &symFile{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "MODULE "):
			if f := strings.Fields(line); len(f) >= 4 {
				s.ID = f[3]
			}
		case strings.HasPrefix(line, "FUNC "):
			rest := strings.TrimPrefix(strings.TrimPrefix(line, "FUNC "), "m ")
			f := strings.SplitN(rest, " ", 4)
			if len(f) < 4 {
				continue
			}
			addr, err1 := strconv.ParseUint(f[0], 16, 64)
			size, err2 := strconv.ParseUint(f[1], 16, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			name := f[3]
			s.Funcs = append(s.Funcs, symFunc{addr, size, name})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *symFile) funcAt(rel uint64) (symFunc, bool) {
	for _, f := range s.Funcs {
		if f.Addr <= rel && rel < f.Addr+f.Size {
			return f, true
		}
	}
	return symFunc{}, false
}

// gdbLibrary is a "library FROM TO PATH" line: gdb's info sharedlibrary.
type gdbLibrary struct {
	From, To uint64
	Path     string
}

func readGDBLibraries(t *testing.T, path string) []gdbLibrary {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var libs []gdbLibrary
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || f[0] != "library" {
			continue
		}
		from, err1 := strconv.ParseUint(f[1], 0, 64)
		to, err2 := strconv.ParseUint(f[2], 0, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: malformed %q", path, line)
		}
		libs = append(libs, gdbLibrary{from, to, f[3]})
	}
	return libs
}
