package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
)

// hostileNames is a symbol file whose module, source file and function
// names hold terminal escapes (OSC title, CSI clear, BEL, CR, BS), C1
// controls and invalid UTF-8.
const hostileNames = "MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 evil\x1b]0;pwned\x07lib.so\n" +
	"FILE 0 /src/evil\x1b[2Jfile\r\b.c\n" +
	"FUNC 1000 40 0 bad\x1b[31mfunc\xc2\x9b\xff\n" +
	"1000 40 7 0\n" +
	"FUNC 1100 40 0 caller\u202etxt.exe\n" +
	"1100 40 9 0\n"

// rawControl returns the first byte sequence of s that a terminal would
// obey: a control byte other than a line feed, DEL, a C1 control, a bidi
// override, or invalid UTF-8.
func rawControl(s string) (string, bool) {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return s[i:min(i+8, len(s))], true
		case r < 0x20 && r != '\n', r >= 0x7f && r < 0xa0, r == 0x202e:
			return s[i:min(i+8, len(s))], true
		}
	}
	return "", false
}

// No text output or diagnostic carries a raw control byte from a .sym's
// names, a dump's module and PDB names or the dump's path, and a path with
// a newline does not forge a log line; names are escaped, not dropped; the
// JSON report keeps them exact (issue 26.12).
func TestHostileNamesEscaped(t *testing.T) {
	dir := t.TempDir()
	dumpData, err := hostile.DumpForSymbols([]byte(hostileNames))
	if err != nil {
		t.Fatal(err)
	}
	m, err := hostile.ReadSymbolModule([]byte(hostileNames))
	if err != nil {
		t.Fatal(err)
	}
	syms := filepath.Join(dir, "symbols")
	symPath := filepath.Join(syms, m.StorePath())
	must(t, os.MkdirAll(filepath.Dir(symPath), 0o755))
	must(t, os.WriteFile(symPath, []byte(hostileNames), 0o644))
	dump := filepath.Join(dir, "crash\x1b[2J\nminidump-stackwalk: forged.dmp")
	must(t, os.WriteFile(dump, dumpData, 0o644))
	broken := filepath.Join(dir, "broken\x1b]0;x\x07\nminidump-stackwalk: forged.dmp")
	must(t, os.WriteFile(broken, dumpData[:200], 0o644))

	for _, args := range [][]string{{}, {"-m"}, {"-b"}, {"-s"}, {"-c"}, {"-d"}, {"--dump"}, {"--human", "--verbose", "error"}} {
		for _, path := range []string{dump, broken} {
			out, errOut, status := runCLI(append(args, path, syms)...)
			if status != exitOK && status != exitDump {
				t.Errorf("%q %q: exit %d\n%s", args, path, status, errOut)
			}
			for name, text := range map[string]string{"stdout": out, "stderr": errOut} {
				if seq, ok := rawControl(text); ok {
					t.Errorf("%q on %q: %s holds %q raw:\n%s", args, filepath.Base(path), name, seq, text)
				}
				for _, line := range strings.Split(text, "\n") {
					if strings.HasPrefix(line, "minidump-stackwalk: forged") {
						t.Errorf("%q: %s has a forged line:\n%s", args, name, text)
					}
				}
			}
			if path == dump && len(args) == 0 && !strings.Contains(out, `evil\x1b]0;pwned\x07lib.so!bad\x1b[31mfunc\u009b\xff [evil\x1b[2Jfile\x0d\x08.c : 7 + 0x`) {
				t.Errorf("the escaped names are not in the report:\n%s", out)
			}
		}
	}

	out, _, _ := runCLI("--json", dump, syms)
	var doc struct {
		Threads []struct {
			Frames []struct {
				Function string `json:"function"`
				File     string `json:"file"`
				Module   string `json:"module"`
			} `json:"frames"`
		} `json:"threads"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	f := doc.Threads[0].Frames[0]
	if f.Function != "bad\x1b[31mfunc\u009b\uFFFD" || f.File != "/src/evil\x1b[2Jfile\r\b.c" || f.Module != "evil\x1b]0;pwned\x07lib.so" {
		t.Errorf("--json frame 0: %+q, want the exact names (invalid UTF-8 as U+FFFD)", f)
	}
}
