package elfsym_test

import (
	"bytes"
	"debug/elf"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/minidump-stackwalk/minidump-stackwalk/dumpsyms"
	"github.com/minidump-stackwalk/minidump-stackwalk/elfsym"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// debugInfoFiles are testdata's ELF files with DWARF data.
var debugInfoFiles = []string{
	"testdata/prog.zst",
	"testdata/prog.debug.zst",
	"../dumpsyms/testdata/amd64-cxx.zst",
	"../dumpsyms/testdata/x86-cxx.zst",
	"../dumpsyms/testdata/arm64-cxx.zst",
	"../dumpsyms/testdata/arm-cxx.zst",
	"../elfcfi/testdata/arm-df.zst",
}

// TestDebugInfoAgainstSym is the differential test: at every address where
// a line record, a function or an inlined call starts or ends (and one byte
// on), DebugInfo.Lookup gives the frames symfile gives from the .sym file
// dumpsyms writes (with INLINE records) for the same file.
func TestDebugInfoAgainstSym(t *testing.T) {
	for _, path := range debugInfoFiles {
		t.Run(path, func(t *testing.T) {
			data := corpus.ReadZstd(t, path)
			f, err := elf.NewFile(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			var sym bytes.Buffer
			if err := dumpsyms.WriteWithDebug(&sym, f, nil, path, dumpsyms.Options{Inlines: true, NoCFI: true}); err != nil {
				t.Fatal(err)
			}
			sf, err := symfile.NewFile(sym.Bytes(), path+".sym")
			if err != nil {
				t.Fatal(err)
			}
			di, err := elfsym.NewDebugInfo(f)
			if err != nil {
				t.Fatal(err)
			}
			if di.Len() == 0 {
				t.Fatal("no functions")
			}
			base := loadBase(f)
			var checked, inlined int
			for _, a := range symAddresses(sym.Bytes()) {
				for _, addr := range []uint64{a, a + 1, a - 1} {
					want, ok := sf.Lookup(addr)
					got, gotOK := di.Lookup(addr + base)
					if !ok || want.IsPublic {
						if gotOK {
							t.Errorf("%#x: DebugInfo has %q, the .sym no FUNC", addr, got.Function)
						}
						continue
					}
					if !gotOK {
						t.Errorf("%#x: DebugInfo has nothing, the .sym %q", addr, want.Name)
						continue
					}
					checked++
					if len(want.Inlines) > 0 {
						inlined++
					}
					if w, g := fromSym(want), relative(got, base); !reflect.DeepEqual(w, g) {
						t.Errorf("%#x: (-sym +DebugInfo)\n%s", addr, cmp.Diff(w, g))
					}
				}
			}
			t.Logf("%d addresses, %d in inlined code", checked, inlined)
			if checked == 0 {
				t.Error("no address checked")
			}
		})
	}
}

func fromSym(s symfile.Symbol) elfsym.Frame {
	fr := elfsym.Frame{Function: s.Name, Base: s.Base, Size: s.Size, File: s.File, Line: s.Line, LineBase: s.LineBase}
	for _, in := range s.Inlines {
		fr.Inlines = append(fr.Inlines, elfsym.InlineFrame{Name: in.Name, CallFile: in.CallFile, CallLine: in.CallLine,
			File: in.File, Line: in.Line, Depth: in.Depth, Base: in.Base})
	}
	return fr
}

func relative(fr elfsym.Frame, base uint64) elfsym.Frame {
	fr.Base -= base
	if fr.File != "" {
		fr.LineBase -= base
	}
	for i := range fr.Inlines {
		fr.Inlines[i].Base -= base
	}
	return fr
}

func loadBase(f *elf.File) uint64 {
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			return p.Vaddr
		}
	}
	return 0
}

// symAddresses are the start and end addresses of a .sym file's FUNC,
// line and INLINE ranges.
func symAddresses(sym []byte) []uint64 {
	var out []uint64
	for _, line := range bytes.Split(sym, []byte("\n")) {
		f := bytes.Fields(line)
		var pairs [][]byte
		switch {
		case len(f) == 0:
		case string(f[0]) == "FUNC":
			g := f[1:]
			if string(g[0]) == "m" {
				g = g[1:]
			}
			pairs = g[:2]
		case string(f[0]) == "INLINE":
			pairs = f[5:]
		case len(f) == 4 && f[0][0] != 'F' && f[0][0] != 'P' && f[0][0] != 'M' && f[0][0] != 'I':
			pairs = f[:2]
		}
		for i := 0; i+1 < len(pairs); i += 2 {
			a, s := hexValue(pairs[i]), hexValue(pairs[i+1])
			out = append(out, a, a+s)
		}
	}
	return out
}

func hexValue(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		}
	}
	return v
}
