package symfile

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// modelFile is a plain, eager reading of a symbol file, written from
// Breakpad's LoadMapFromMemory rules with none of the index machinery:
// every record in file order, lookups by linear search. It checks that the
// lazy index answers as an eager parse would.
type modelFile struct {
	funcs []*modelFunc // accepted, in file order
	pubs  map[uint64]publicRecord
	files map[int64]string
}

type modelFunc struct {
	r     funcRecord
	lines []lineRecord // accepted, in file order
}

func overlaps(a1, s1, a2, s2 uint64) bool { return a1 <= a2+s2-1 && a2 <= a1+s1-1 }

func readModel(data []byte) *modelFile {
	m := &modelFile{pubs: map[uint64]publicRecord{}, files: map[int64]string{}}
	var cur *modelFunc
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		line := bytes.TrimRight(sc.Bytes(), "\r")
		switch {
		case len(line) == 0:
		case bytes.HasPrefix(line, pFILE):
			if id, name, ok := parseFileRecord(line[5:]); ok {
				if _, dup := m.files[id]; !dup {
					m.files[id] = string(name)
				}
			}
		case bytes.HasPrefix(line, pSTACK), bytes.HasPrefix(line, pMODULE), bytes.HasPrefix(line, pINFO),
			bytes.HasPrefix(line, pINLINE), bytes.HasPrefix(line, pINLINE_ORIGIN):
		case bytes.HasPrefix(line, pFUNC):
			cur = nil
			r, ok := parseFunc(line[5:])
			if !ok {
				continue
			}
			r.name = bytes.Clone(r.name) // the scanner reuses its buffer
			cur = &modelFunc{r: r}
			if _, ok := highOf(r.addr, r.size); !ok {
				continue // parsed, owns its lines, but never stored
			}
			stored := true
			for _, g := range m.funcs {
				if overlaps(g.r.addr, g.r.size, r.addr, r.size) {
					stored = false
				}
			}
			if stored {
				m.funcs = append(m.funcs, cur)
			}
		case bytes.HasPrefix(line, pPUBLIC):
			cur = nil
			if r, ok := parsePublic(line[7:]); ok && r.addr != 0 {
				if _, dup := m.pubs[r.addr]; !dup {
					r.name = bytes.Clone(r.name)
					m.pubs[r.addr] = r
				}
			}
		default:
			if cur == nil {
				continue
			}
			if lr, ok := parseLine(line); ok {
				if _, ok := highOf(lr.addr, lr.size); !ok {
					continue
				}
				stored := true
				for _, k := range cur.lines {
					if overlaps(k.addr, k.size, lr.addr, lr.size) {
						stored = false
					}
				}
				if stored {
					cur.lines = append(cur.lines, lr)
				}
			}
		}
	}
	return m
}

func (m *modelFile) lookup(addr uint64) (Symbol, bool) {
	var near *modelFunc
	for _, f := range m.funcs {
		if addr >= f.r.addr && addr-f.r.addr < f.r.size {
			s := Symbol{Name: string(f.r.name), Base: f.r.addr, Size: f.r.size, ParamSize: uint32(f.r.paramSize), Multiple: f.r.multiple}
			for _, l := range f.lines {
				if addr >= l.addr && addr-l.addr < l.size {
					s.File, s.Line, s.LineBase = m.files[l.file], int(l.line), l.addr
				}
			}
			return s, true
		}
		if f.r.addr <= addr && (near == nil || f.r.addr > near.r.addr) {
			near = f
		}
	}
	var best *publicRecord
	for a, p := range m.pubs {
		if a <= addr && (best == nil || a > best.addr) {
			p := p
			best = &p
		}
	}
	if best == nil || (near != nil && best.addr <= near.r.addr) {
		return Symbol{}, false
	}
	return Symbol{Name: string(best.name), Base: best.addr, ParamSize: uint32(best.paramSize), IsPublic: true, Multiple: best.multiple}, true
}

func TestLookupMatchesEagerModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for _, p := range corpusSymFiles(t) {
		if strings.HasSuffix(p, ".gz") || strings.HasSuffix(p, ".zst") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil || len(data) > 1<<20 { // the model's linear searches are slow
			continue
		}
		f, _ := NewFile(data, p)
		m := readModel(data)
		var addrs []uint64
		for _, fn := range m.funcs {
			addrs = append(addrs, fn.r.addr, fn.r.addr+fn.r.size/2, fn.r.addr+fn.r.size-1, fn.r.addr+fn.r.size)
			for _, l := range fn.lines {
				addrs = append(addrs, l.addr+l.size/2)
			}
		}
		for a := range m.pubs {
			addrs = append(addrs, a-1, a, a+1, a+0x40)
		}
		r.Shuffle(len(addrs), func(i, j int) { addrs[i], addrs[j] = addrs[j], addrs[i] })
		if len(addrs) > 1500 {
			addrs = addrs[:1500]
		}
		for _, a := range addrs {
			got, ok := f.Lookup(a)
			got.Inlines = nil
			want, wok := m.lookup(a)
			if ok != wok || !cmp.Equal(got, want, cmpopts.EquateEmpty()) {
				t.Errorf("%s: Lookup(%#x) = %+v, %v; eager model %+v, %v", p, a, got, ok, want, wok)
				break
			}
			checked++
		}
	}
	t.Logf("%d lookups agree with the eager model", checked)
}
