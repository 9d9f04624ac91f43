package dumptext

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// oracleDumps are the minidumps the oracle test compares on: every
// minidump of the shared corpus and of testdata.
func oracleDumps(t *testing.T) []string {
	var paths []string
	root, err := corpus.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, pat := range []string{"testdata/dumps/*.dmp"} {
		m, _ := filepath.Glob(filepath.Join(root, pat))
		paths = append(paths, m...)
	}
	shared := corpus.Shared(t, "corpus")
	for _, pat := range []string{"breakpad/dumps/*.dmp", "breakpad-generated/dumps/*.dmp",
		"breakpad-generated/stress/dumps/*.dmp", "rust-minidump/testdata/*.dmp"} {
		m, _ := filepath.Glob(filepath.Join(shared, pat))
		paths = append(paths, m...)
	}
	sort.Strings(paths)
	return paths
}

// TestOracle compares Write with Breakpad's minidump_dump, byte for byte.
func TestOracle(t *testing.T) {
	bin := oracle.Require(t, oracle.Dump)
	same := 0
	paths := oracleDumps(t)
	for _, p := range paths {
		name := p
		if i := strings.Index(p, "/corpus/"); i >= 0 {
			name = p[i+len("/corpus/"):]
		} else if i := strings.Index(p, "testdata/"); i >= 0 {
			name = p[i:]
		}
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(bin, p)
			var want bytes.Buffer
			cmd.Stdout = &want
			cmd.Run() // exits 1 when a stream it expects is missing
			var got bytes.Buffer
			f, err := minidump.Open(p)
			if err == nil {
				err = Write(&got, f)
				f.Close()
			}
			if err != nil && want.Len() != 0 {
				t.Fatalf("Write: %v; minidump_dump printed %d bytes", err, want.Len())
			}
			if bytes.Equal(got.Bytes(), want.Bytes()) || withoutEscapes(got.String()) == escaped(want.String()) {
				same++
				return
			}
			t.Errorf("differs from minidump_dump: %s", firstDiff(withoutEscapes(got.String()), escaped(want.String())))
		})
	}
	t.Logf("%d of %d dumps byte-identical to minidump_dump", same, len(paths))
}

// firstDiff describes the first differing line of got and want.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + itoa(i+1) + ":\n got: " + clip(gl) + "\nwant: " + clip(wl)
		}
	}
	return "no line differs"
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

func itoa(i int) string { return strconv.Itoa(i) }

// escaped is minidump_dump's output as Write prints it: the one deliberate
// difference is that strings from the dump are escaped for a terminal
// (textsafe), which minidump_dump prints raw.
func escaped(breakpad string) string { return textsafe.EscapeText(breakpad) }

// withoutEscapes undoes the escapes of the tabs and line feeds inside a
// string from the dump, which minidump_dump prints raw (escaped keeps them
// raw, as in the text streams).
func withoutEscapes(ours string) string {
	return strings.NewReplacer(`\x09`, "\t", `\x0a`, "\n").Replace(ours)
}
