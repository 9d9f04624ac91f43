package difftest

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Code in the dump (GenerateCode): every module's executable segment is
// laid out as a compiler would, and the dump holds the parts a producer
// would save, so that the walker's call-site check (walker/internal/retaddr)
// has something to judge.
//
// The instruction encodings below come from the GNU assemblers, not from
// hand assembly:
//
//	arm-linux-gnueabihf-as a32.s (.arm) / t32.s (.thumb, .syntax unified)
//	aarch64-linux-gnu-as -march=armv8.3-a a64.s
//	as --32 x86.s; as --64 x64.s
//
// each followed by the matching objdump -d; the direct calls' offsets are
// computed by the encoders below, which TestCallEncodingsMatchAssembler
// checks against the same assemblers.

// isaCode is what a function's bytes are made of in one instruction set.
type isaCode struct {
	unit     int      // instruction alignment (and fixed length, except x86)
	fill     [][]byte // ordinary instructions, none a call or branch
	pad      []byte   // between functions
	ret      []byte   // the function's last instruction
	prologue []byte   // a frame-pointer function's first instructions
	indirect [][]byte // calls through a register or memory
	indPAC   [][]byte // arm64e: authenticated indirect calls
}

var (
	// arm-linux-gnueabihf-as (.arm): mov r0, r1; add r0, r0, #1;
	// ldr r3, [sp, #4]; str r2, [r11, #-8]; cmp r0, #0; sub sp, sp, #16;
	// push {r7, lr}; bx lr; blx r3; blx r12.
	codeA32 = isaCode{
		unit: 4,
		fill: [][]byte{le32(0xe1a00001), le32(0xe2800001), le32(0xe59d3004), le32(0xe50b2008),
			le32(0xe3500000), le32(0xe24dd010)},
		pad:      le32(0),
		ret:      le32(0xe12fff1e),
		prologue: le32(0xe92d4080),
		indirect: [][]byte{le32(0xe12fff33), le32(0xe12fff3c)},
	}
	// arm-linux-gnueabihf-as (.thumb): movs r0, r1; adds r0, #1;
	// ldr r3, [sp, #4]; str r2, [sp, #8]; cmp r0, #0; sub sp, #16;
	// nop (46c0); bx lr; push {r7, lr}; mov r7, sp; blx r3; blx r4.
	codeT32 = isaCode{
		unit: 2,
		fill: [][]byte{le16(0x0008), le16(0x3001), le16(0x9b01), le16(0x9202), le16(0x2800),
			le16(0xb084)},
		pad:      le16(0x46c0),
		ret:      le16(0x4770),
		prologue: append(le16(0xb580), le16(0x466f)...),
		indirect: [][]byte{le16(0x4798), le16(0x47a0)},
	}
	// aarch64-linux-gnu-as -march=armv8.3-a: mov x0, x1; add x0, x0, #1;
	// ldr x3, [sp, #16]; str x2, [x29, #24]; cmp x0, #0; nop; ret;
	// stp x29, x30, [sp, #-16]!; mov x29, sp; blr x8; blr x16;
	// blraaz x8; blraa x8, x17.
	codeA64 = isaCode{
		unit: 4,
		fill: [][]byte{le32(0xaa0103e0), le32(0x91000400), le32(0xf9400be3), le32(0xf9000fa2),
			le32(0xf100001f)},
		pad:      le32(0xd503201f),
		ret:      le32(0xd65f03c0),
		prologue: append(le32(0xa9bf7bfd), le32(0x910003fd)...),
		indirect: [][]byte{le32(0xd63f0100), le32(0xd63f0200)},
		indPAC:   [][]byte{le32(0xd63f091f), le32(0xd73f0911)},
	}
	// as --32: sub $0x10,%esp; mov 8(%ebp),%eax; add $1,%eax;
	// mov %eax,-4(%ebp); xor %eax,%eax; test %eax,%eax; lea 4(%ebx),%ecx;
	// nop; nopl (%eax); int3; ret; push %ebp + mov %esp,%ebp;
	// call *%eax; call *%edx; call *8(%ebp); call *0x12345678.
	// No filler byte is E8, FF or 9A, so that filler never decodes as a
	// call's end.
	codeX86 = isaCode{
		unit: 1,
		fill: [][]byte{{0x83, 0xec, 0x10}, {0x8b, 0x45, 0x08}, {0x83, 0xc0, 0x01}, {0x89, 0x45, 0xfc},
			{0x31, 0xc0}, {0x85, 0xc0}, {0x8d, 0x4b, 0x04}, {0x90}, {0x0f, 0x1f, 0x00}},
		pad:      []byte{0xcc},
		ret:      []byte{0xc3},
		prologue: []byte{0x55, 0x89, 0xe5},
		indirect: [][]byte{{0xff, 0xd0}, {0xff, 0xd2}, {0xff, 0x55, 0x08}, {0xff, 0x15, 0x78, 0x56, 0x34, 0x12}},
	}
	// as --64: sub $0x20,%rsp; mov -8(%rbp),%rax; mov %rdi,-16(%rbp);
	// add $1,%rax; test %rax,%rax; xor %eax,%eax; lea 8(%rbx),%rcx; nop;
	// nopl (%rax); int3; ret; push %rbp + mov %rsp,%rbp; call *%rax;
	// call *%r12; call *0x100(%rip); call *0x10(%rbx).
	codeAMD64 = isaCode{
		unit: 1,
		fill: [][]byte{{0x48, 0x83, 0xec, 0x20}, {0x48, 0x8b, 0x45, 0xf8}, {0x48, 0x89, 0x7d, 0xf0},
			{0x48, 0x83, 0xc0, 0x01}, {0x48, 0x85, 0xc0}, {0x31, 0xc0}, {0x48, 0x8d, 0x4b, 0x08}, {0x90},
			{0x0f, 0x1f, 0x00}},
		pad:      []byte{0xcc},
		ret:      []byte{0xc3},
		prologue: []byte{0x55, 0x48, 0x89, 0xe5},
		indirect: [][]byte{{0xff, 0xd0}, {0x41, 0xff, 0xd4}, {0xff, 0x15, 0x00, 0x01, 0x00, 0x00}, {0xff, 0x53, 0x10}},
	}
)

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func le16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }

// Direct calls, encoded for a call instruction at site to target.

// encCallX86 is E8 rel32 (x86 and amd64): relative to the next instruction.
func encCallX86(site, target uint64) []byte {
	return append([]byte{0xe8}, le32(uint32(target-(site+5)))...)
}

// encBLA32 is ARM BL (cond AL): imm24 words from the instruction + 8.
func encBLA32(site, target uint64) []byte {
	return le32(0xeb000000 | uint32((target-(site+8))>>2)&0xffffff)
}

// encBLT32 is Thumb BL (T1): S:I1:I2:imm10:imm11:0 from the instruction
// + 4, with J1 = NOT(I1 XOR S), J2 = NOT(I2 XOR S).
func encBLT32(site, target uint64) []byte {
	off := uint32(target - (site + 4))
	s := off >> 24 & 1
	i1, i2 := off>>23&1, off>>22&1
	j1, j2 := ^(i1^s)&1, ^(i2^s)&1
	hw1 := 0xf000 | s<<10 | off>>12&0x3ff
	hw2 := 0xd000 | j1<<13 | j2<<11 | off>>1&0x7ff
	return append(le16(uint16(hw1)), le16(uint16(hw2))...)
}

// encBLA64 is A64 BL: imm26 words from the instruction.
func encBLA64(site, target uint64) []byte {
	return le32(0x94000000 | uint32((target-site)>>2)&0x3ffffff)
}

// siteKind is how a call site in the generated code calls.
type siteKind int

const (
	siteNone     siteKind = iota // no call ends there: ordinary instructions
	siteDirect                   // a direct call to the function that returns there
	siteIndirect                 // a call through a register or memory
	siteTail                     // a direct call to a function that tail-called the one returning there
	siteOther                    // (not on the chain) a direct call to some function
)

func (k siteKind) String() string {
	return [...]string{"no call", "direct", "indirect", "tail call via", "direct to"}[k]
}

// callSite is the instruction that ends at a return address in fn.
type callSite struct {
	kind   siteKind
	target *function // siteDirect, siteTail, siteOther: the called function
}

// codeImage is every module's executable segment.
type codeImage struct {
	isa   isaCode
	text  map[*module][]byte // from textStart(m) to m.base+m.size
	sites map[*function]map[uint64]callSite
}

// textStart is where a module's executable segment begins.
func textStart(m *module) uint64 { return m.base + 0x1000 }

func (g *gen) isa() isaCode {
	switch g.fl.Arch {
	case minidump.ArchX86:
		return codeX86
	case minidump.ArchAMD64:
		return codeAMD64
	case minidump.ArchARM:
		if g.fl.Thumb {
			return codeT32
		}
		return codeA32
	}
	return codeA64
}

// layoutCode writes every function of every module: its prologue,
// ordinary instructions, a call ending at each of its call sites and a
// return. The call sites on the true chain call the callee directly
// (60%), indirectly (20%), or call another function that tail-called the
// callee (20%); a site two chain frames share calls indirectly. The other
// sites — what stale return addresses on the stack point at — call some
// function directly (55%), indirectly (25%), or are no call (20%).
func (g *gen) layoutCode(chain []*frame) *codeImage {
	r := g.codeR
	img := &codeImage{isa: g.isa(), text: map[*module][]byte{}, sites: map[*function]map[uint64]callSite{}}
	all := g.allFuncs()
	need := map[*function]map[uint64][]*function{}
	for i := 1; i < len(chain); i++ {
		f := chain[i].fn
		off := chain[i].pc&^1 - f.start
		if need[f] == nil {
			need[f] = map[uint64][]*function{}
		}
		need[f][off] = append(need[f][off], chain[i-1].fn)
	}
	other := func(not *function) *function {
		for {
			if t := all[r.Intn(len(all))]; t != not {
				return t
			}
		}
	}
	for _, f := range all {
		sites := map[uint64]callSite{}
		for _, off := range f.callOff {
			if _, done := sites[off]; done {
				continue
			}
			var cs callSite
			if callees := need[f][off]; len(callees) > 0 {
				several := false
				for _, c := range callees[1:] {
					several = several || c != callees[0]
				}
				switch x := r.Float64(); {
				case several:
					cs = callSite{kind: siteIndirect}
				case x < 0.6:
					cs = callSite{kind: siteDirect, target: callees[0]}
				case x < 0.8:
					cs = callSite{kind: siteIndirect}
				default:
					cs = callSite{kind: siteTail, target: other(callees[0])}
				}
			} else {
				switch x := r.Float64(); {
				case x < 0.55:
					cs = callSite{kind: siteOther, target: all[r.Intn(len(all))]}
				case x < 0.8:
					cs = callSite{kind: siteIndirect}
				default:
					cs = callSite{kind: siteNone}
				}
			}
			sites[off] = cs
		}
		img.sites[f] = sites
	}
	for _, m := range g.mods {
		text := make([]byte, m.base+m.size-textStart(m))
		for i := 0; i+len(img.isa.pad) <= len(text); i += len(img.isa.pad) {
			copy(text[i:], img.isa.pad)
		}
		for _, f := range m.funcs {
			g.writeFunction(img, text[f.start-textStart(m):][:f.size], f)
		}
		img.text[m] = text
	}
	return img
}

// writeFunction lays out f's bytes in b.
func (g *gen) writeFunction(img *codeImage, b []byte, f *function) {
	r, isa := g.codeR, img.isa
	fill := func(from, to int) {
		for p := from; p < to; {
			var ins []byte
			for tries := 0; tries < 8; tries++ {
				ins = isa.fill[r.Intn(len(isa.fill))]
				if p+len(ins) <= to {
					break
				}
			}
			if p+len(ins) > to {
				ins = isa.pad
				if isa.unit == 1 {
					ins = []byte{0x90} // nop
				}
			}
			copy(b[p:], ins)
			p += len(ins)
		}
	}
	pos := 0
	if f.kind == kindFP {
		copy(b, isa.prologue)
		pos = len(isa.prologue)
	}
	var offs []int
	for off := range img.sites[f] {
		offs = append(offs, int(off))
	}
	sort.Ints(offs)
	for _, off := range offs {
		cs := img.sites[f][uint64(off)]
		ins := g.callBytes(isa, f.start+uint64(off), cs, off-pos)
		if ins == nil {
			// No call fits after the previous one (x86: sites 4 bytes
			// apart): an indirect call of 2 bytes always does.
			cs = callSite{kind: siteIndirect}
			img.sites[f][uint64(off)] = cs
			ins = isa.indirect[0]
		}
		fill(pos, off-len(ins))
		copy(b[off-len(ins):], ins)
		pos = off
	}
	end := len(b) - len(isa.ret)
	fill(pos, end)
	copy(b[end:], isa.ret)
}

// callBytes encodes the call cs ending at ra, at most room bytes long
// (nil if none fits).
func (g *gen) callBytes(isa isaCode, ra uint64, cs callSite, room int) []byte {
	r := g.codeR
	switch cs.kind {
	case siteNone:
		return []byte{}
	case siteIndirect:
		choices := isa.indirect
		// (From a source of its own, so that arm64e's code is plain
		// arm64's but for the authenticated calls.)
		if g.fl.PAC && g.pacCallR.Intn(2) == 0 {
			choices = isa.indPAC
		}
		var fits [][]byte
		for _, c := range choices {
			if len(c) <= room {
				fits = append(fits, c)
			}
		}
		if len(fits) == 0 {
			return nil
		}
		ins := fits[r.Intn(len(fits))]
		if isa.unit == 2 {
			// Thumb BLX Rm is 2 bytes: an ordinary instruction before it
			// keeps the pair 4 bytes.
			ins = append(append([]byte{}, isa.fill[r.Intn(len(isa.fill))]...), ins...)
		}
		return ins
	}
	target := cs.target.start
	var ins []byte
	switch g.fl.Arch {
	case minidump.ArchX86, minidump.ArchAMD64:
		ins = encCallX86(ra-5, target)
	case minidump.ArchARM:
		if g.fl.Thumb {
			ins = encBLT32(ra-4, target)
		} else {
			ins = encBLA32(ra-4, target)
		}
	default:
		ins = encBLA64(ra-4, target)
	}
	if len(ins) > room {
		return nil
	}
	return ins
}

// codeRegions returns the parts of the code a producer saves, as sorted,
// non-overlapping, non-adjacent [start, end) ranges: on Windows (full
// memory) every module's executable segment; elsewhere, as Breakpad's Linux
// client and core2md do, 256 bytes around the instruction pointer and 64
// bytes before and after every stack word and register value that points
// into an executable segment (ARM: with the Thumb bit cleared; arm64e: with
// the pointer-authentication bits cleared, as a producer that knows them
// would), clipped to the segment.
func (g *gen) codeRegions(stackWords []uint64, ctx minidump.Context) [][2]uint64 {
	var spans [][2]uint64
	if g.isWindows() {
		for _, m := range g.mods {
			spans = append(spans, [2]uint64{textStart(m), m.base + m.size})
		}
		return spans
	}
	around := func(v, before, after uint64) {
		if g.fl.Arch == minidump.ArchARM {
			v &^= 1
		}
		if g.fl.PAC {
			v &^= 0xff << 48
		}
		for _, m := range g.mods {
			lo, hi := textStart(m), m.base+m.size
			if v < lo || v >= hi {
				continue
			}
			s, e := lo, hi
			if v-lo > before {
				s = v - before
			}
			if hi-v > after {
				e = v + after
			}
			spans = append(spans, [2]uint64{s, e})
		}
	}
	ip, _ := ctx.IP()
	around(ip, 128, 128)
	for i := 0; i < ctx.NumRegs(); i++ {
		if v, ok := ctx.Index(i); ok {
			around(v, 64, 64)
		}
	}
	for _, v := range stackWords {
		around(v, 64, 64)
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	var merged [][2]uint64
	for _, s := range spans {
		if n := len(merged); n > 0 && s[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], s[1])
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// addCode lays the code out and adds the saved parts to the dump's memory.
func (g *gen) addCode(b *synth.Builder, chain []*frame, stack []byte, ctx minidump.Context) *codeImage {
	img := g.layoutCode(chain)
	var words []uint64
	for i := 0; i+int(g.word) <= len(stack); i += int(g.word) {
		if g.word == 4 {
			words = append(words, uint64(binary.LittleEndian.Uint32(stack[i:])))
		} else {
			words = append(words, binary.LittleEndian.Uint64(stack[i:]))
		}
	}
	for _, s := range g.codeRegions(words, ctx) {
		for _, m := range g.mods {
			if s[0] >= textStart(m) && s[1] <= m.base+m.size {
				off := s[0] - textStart(m)
				b.AddMemory(s[0], img.text[m][off:off+s[1]-s[0]])
			}
		}
	}
	return img
}

// describeSite says how the chain's frame i was called, for failure
// messages and for telling the known cases apart.
func (img *codeImage) describeSite(chain []*frame, i int) string {
	if img == nil || i == 0 {
		return ""
	}
	f := chain[i].fn
	cs := img.sites[f][chain[i].pc&^1-f.start]
	if cs.target != nil {
		return fmt.Sprintf(" call=%s %s", cs.kind, cs.target.name)
	}
	return fmt.Sprintf(" call=%s", cs.kind)
}

// newCodeRand is the code layout's random source: separate, so that a
// case with code has the same chain and stack as the case without.
func newCodeRand(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed ^ 0x5eedc0de)) }

// newPACCallRand chooses between plain and authenticated indirect calls.
func newPACCallRand(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed ^ 0x9acca11)) }
