package symfile

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"slices"
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
	inits []modelInit       // accepted STACK CFI INIT, file order
	delta map[uint64][]byte // STACK CFI deltas, the last at an address wins
}

type modelInit struct {
	addr, size uint64
	rules      []byte
}

type modelFunc struct {
	r     funcRecord
	lines []lineRecord // accepted, in file order
}

func overlaps(a1, s1, a2, s2 uint64) bool { return a1 <= a2+s2-1 && a2 <= a1+s1-1 }

func readModel(data []byte) *modelFile {
	m := &modelFile{pubs: map[uint64]publicRecord{}, files: map[int64]string{}, delta: map[uint64][]byte{}}
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
		case bytes.HasPrefix(line, pSTACKCFIINIT):
			t := strings.SplitN(string(line[len(pSTACKCFIINIT):]), " ", 3)
			if len(t) < 3 {
				continue
			}
			a, sz := looseHex([]byte(t[0])), looseHex([]byte(t[1]))
			if _, ok := highOf(a, sz); !ok {
				continue
			}
			stored := true
			for _, in := range m.inits {
				if overlaps(in.addr, in.size, a, sz) {
					stored = false
				}
			}
			if stored {
				m.inits = append(m.inits, modelInit{a, sz, []byte(t[2])})
			}
		case bytes.HasPrefix(line, pSTACKCFI):
			t := strings.SplitN(string(line[len(pSTACKCFI):]), " ", 2)
			if len(t) == 2 {
				m.delta[looseHex([]byte(t[0]))] = []byte(t[1])
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

// cfiRules is Breakpad's FindCFIFrameInfo over the eager maps.
func (m *modelFile) cfiRules(addr uint64) (CFIRules, bool) {
	for _, in := range m.inits {
		if addr >= in.addr && addr-in.addr < in.size {
			var r CFIRules
			if !r.apply(in.rules) {
				return CFIRules{}, false
			}
			var keys []uint64
			for a := range m.delta {
				if a >= in.addr && a <= addr {
					keys = append(keys, a)
				}
			}
			slices.Sort(keys)
			for _, a := range keys {
				r.apply(m.delta[a])
			}
			return r, true
		}
	}
	return CFIRules{}, false
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
		var cfiAddrs []uint64
		for _, in := range m.inits {
			cfiAddrs = append(cfiAddrs, in.addr, in.addr+in.size/2, in.addr+in.size-1, in.addr+in.size)
		}
		for a := range m.delta {
			cfiAddrs = append(cfiAddrs, a, a+1)
		}
		r.Shuffle(len(cfiAddrs), func(i, j int) { cfiAddrs[i], cfiAddrs[j] = cfiAddrs[j], cfiAddrs[i] })
		if len(cfiAddrs) > 300 {
			cfiAddrs = cfiAddrs[:300]
		}
		for _, a := range cfiAddrs {
			got, ok := f.CFIRules(a)
			want, wok := m.cfiRules(a)
			if ok != wok || !cmp.Equal(got, want, cmpopts.EquateEmpty()) {
				t.Errorf("%s: CFIRules(%#x) = %+v, %v; eager model %+v, %v", p, a, got, ok, want, wok)
				break
			}
			checked++
		}
	}
	t.Logf("%d lookups agree with the eager model", checked)
}
