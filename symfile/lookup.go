package symfile

import (
	"bytes"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/mapfault"
)

// function is a FUNC record with its line and INLINE records, parsed on demand.
type function struct {
	name      string
	multiple  bool
	paramSize uint32
	lines     []span // accepted line ranges, sorted; idx into lineRecs
	lineRecs  []lineRecord
	inlines   containedMap // entries index inlineRecs
	inlineRec []inlineRecord
}

// maxFunctionLines bounds the line records kept for one function (about
// 100 bytes each once parsed): a hostile file with one FUNC and millions of
// line records cost 16 times its size in memory (docs/limits.md). Compilers
// write a few thousand for the largest functions.
const maxFunctionLines = 1 << 20

// function parses funcs[i] and its block, once.
func (f *File) function(i int) *function {
	f.mu.RLock()
	fn := f.parsed[i]
	f.mu.RUnlock()
	if fn != nil {
		return fn
	}
	fn = f.parseFunction(i)
	f.mu.Lock()
	if f.parsed == nil {
		f.parsed = make(map[int]*function)
	}
	if prev := f.parsed[i]; prev != nil {
		fn = prev
	} else {
		f.parsed[i] = fn
		f.parsedBytes += functionBytes(fn) // HeapBytes
	}
	f.mu.Unlock()
	return fn
}

func (f *File) parseFunction(i int) *function {
	e := f.funcAt(i)
	head := f.lineFrom(e.off)
	fn := &function{}
	if !bytes.HasPrefix(head, pFUNC) {
		return fn // only an index file forged with a valid checksum gets here
	}
	r, _ := parseFunc(head[len(pFUNC):]) // validated by the index pass
	fn.name, fn.multiple, fn.paramSize = string(r.name), r.multiple, uint32(r.paramSize)
	fn.inlines.allowEqual = true
	var spans []span
	lastDepth := int64(0) // Breakpad's last_added_inline_nest_level starts at 0
	pos := e.off + uint64(len(head))
lines:
	for pos < e.end {
		// Skip to the next line.
		nl := bytes.IndexByte(f.data[pos:e.end], '\n')
		if nl < 0 {
			break
		}
		pos += uint64(nl) + 1
		line := f.lineFrom(pos)
		if len(line) == 0 {
			continue
		}
		switch {
		case bytes.HasPrefix(line, pINLINE):
			in, ok := parseInline(line[len(pINLINE):])
			if !ok || in.depth > lastDepth+1 {
				continue
			}
			lastDepth = in.depth
			k := len(fn.inlineRec)
			fn.inlineRec = append(fn.inlineRec, in)
			for _, rg := range in.ranges {
				fn.inlines.store(rg[0], rg[1], k)
			}
		case isOtherRecord(line):
			// FILE, STACK, INFO, ... between line records do not end the function.
		default:
			if len(fn.lineRecs) >= maxFunctionLines {
				// The rest of the block is not read: a hostile block of
				// hundreds of megabytes would cost its time and its pages.
				// dump_syms writes a function's INLINE records before its
				// line records, so nothing it writes is lost.
				break lines
			}
			lr, ok := parseLine(line)
			if !ok {
				continue
			}
			if high, ok := highOf(lr.addr, lr.size); ok {
				spans = append(spans, span{lr.addr, high, len(fn.lineRecs)})
			}
			fn.lineRecs = append(fn.lineRecs, lr)
		}
	}
	fn.lines = exclusiveFirstWins(spans)
	return fn
}

// recordAt returns the fields after prefix of the line starting at off, or
// nil when that line is not such a record. The index pass only records
// offsets of lines it classified, but an index loaded from disk is checked
// for bounds, not for what each offset points at.
func (f *File) recordAt(off uint64, prefix []byte) []byte {
	line := f.lineFrom(off)
	if !bytes.HasPrefix(line, prefix) {
		return nil
	}
	return line[len(prefix):]
}

func isOtherRecord(line []byte) bool {
	for _, p := range [][]byte{pFILE, pSTACK, pMODULE, pINFO, pINLINE_ORIGIN, pFUNC, pPUBLIC} {
		if bytes.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// Lookup finds the function (or PUBLIC symbol), source line and inline chain
// at the module-relative address addr, following Breakpad's
// BasicSourceLineResolver: a FUNC covering addr wins; otherwise the nearest
// PUBLIC at or below addr is used only when no FUNC lies between it and addr
// (precisely: when the nearest FUNC below addr starts before the PUBLIC).
func (f *File) Lookup(addr uint64) (Symbol, bool) {
	defer mapfault.Name(f.name) // fault.go
	at, near := f.findFunc(addr)
	if at >= 0 {
		s := f.funcAt(at)
		fn := f.function(at)
		sym := Symbol{
			Name:      fn.name,
			Base:      s.base,
			Size:      s.high - s.base + 1,
			ParamSize: fn.paramSize,
			Multiple:  fn.multiple,
		}
		if li, _ := findRange(fn.lines, addr); li >= 0 {
			ls := fn.lines[li]
			lr := fn.lineRecs[ls.idx]
			sym.File, _ = f.fileName(lr.file)
			sym.Line = int(lr.line)
			sym.LineBase = ls.base
		}
		sym.Inlines = f.inlineChain(fn, addr, sym.File, sym.Line)
		return sym, true
	}
	pi := f.publicAtOrBelow(addr)
	if pi < 0 {
		return Symbol{}, false
	}
	p := f.pubAt(pi)
	if near >= 0 && p.addr <= f.funcAt(near).base {
		return Symbol{}, false
	}
	r, ok := parsePublic(f.recordAt(p.off, pPUBLIC))
	if !ok {
		return Symbol{}, false
	}
	return Symbol{Name: string(r.name), Base: p.addr, ParamSize: uint32(r.paramSize), IsPublic: true, Multiple: r.multiple}, true
}

// inlineChain builds the inline frames at addr, deepest first, with the
// source positions Breakpad's ConstructInlineFrames assigns: the deepest
// inline gets the line record's position, each outer one the call site of
// the inline inside it.
func (f *File) inlineChain(fn *function, addr uint64, file string, line int) []InlineFrame {
	var buf [8]int
	ids := fn.inlines.lookup(addr, buf[:0])
	if len(ids) == 0 {
		return nil
	}
	out := make([]InlineFrame, len(ids))
	lineFile := file
	for i, k := range ids {
		in := fn.inlineRec[k]
		fr := InlineFrame{CallLine: int(in.callLine), Depth: int(in.depth)}
		if name, ok := f.originName(in.origin); ok {
			fr.Name = name
		} else {
			fr.Name = "<name omitted>"
		}
		// Breakpad copies the frame, so without a call-site file (the old
		// INLINE form) or with an unknown one the line record's file stays.
		fr.CallFile = lineFile
		if in.hasCallFile {
			if name, ok := f.fileName(in.callFile); ok {
				fr.CallFile = name
			}
		}
		for _, rg := range in.ranges {
			if addr >= rg[0] && addr-rg[0] < rg[1] {
				fr.Base = rg[0]
				break
			}
		}
		fr.File, fr.Line = file, line
		file, line = fr.CallFile, fr.CallLine
		out[i] = fr
	}
	return out
}

// HasFunctionAt reports whether a FUNC or PUBLIC record names addr
// (Breakpad's test, in stack scanning, that a candidate return address is code).
func (f *File) HasFunctionAt(addr uint64) bool {
	defer mapfault.Name(f.name) // fault.go
	if at, near := f.findFunc(addr); at >= 0 {
		return true
	} else {
		pi := f.publicAtOrBelow(addr)
		return pi >= 0 && (near < 0 || f.pubAt(pi).addr > f.funcAt(near).base)
	}
}

// StartsAt reports whether the symbol Lookup finds at addr starts at
// addr and is named name, without parsing the function's lines and
// inlines or copying its name: a walker asks it of every caller's pc (is
// this the sigreturn trampoline?), where a function rarely starts.
func (f *File) StartsAt(addr uint64, name string) bool {
	defer mapfault.Name(f.name) // fault.go
	at, near := f.findFunc(addr)
	if at >= 0 {
		return f.funcAt(at).base == addr && f.function(at).name == name
	}
	pi := f.publicAtOrBelow(addr)
	if pi < 0 || f.pubAt(pi).addr != addr {
		return false
	}
	if near >= 0 && addr <= f.funcAt(near).base {
		return false
	}
	r, ok := parsePublic(f.recordAt(f.pubAt(pi).off, pPUBLIC))
	return ok && string(r.name) == name
}
