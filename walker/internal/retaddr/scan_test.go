package retaddr_test

// Synthetic arm and arm64 walks whose dump holds code: the scan out of a
// CFI-less frame chooses among the stack's candidates by their call sites.

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/arm"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/arm64"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/internal/retaddr"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// thumbBL encodes `bl target` at addr (Thumb T1); armBL `bl target` in ARM
// state; a64BL the A64 BL. TestEncoders checks them against binutils.
func thumbBL(addr, target uint64) []byte {
	off := uint32(target - (addr + 4))
	s := off >> 24 & 1
	i1, i2 := off>>23&1, off>>22&1
	j1, j2 := (^i1^s)&1, (^i2^s)&1
	hw1 := 0xf000 | s<<10 | off>>12&0x3ff
	hw2 := 0xd000 | j1<<13 | j2<<11 | off>>1&0x7ff
	return binary.LittleEndian.AppendUint16(binary.LittleEndian.AppendUint16(nil, uint16(hw1)), uint16(hw2))
}

func a64BL(addr, target uint64) []byte {
	return binary.LittleEndian.AppendUint32(nil, 0x94000000|uint32((target-addr)>>2)&0x3ffffff)
}

// TestEncoders checks the test's encoders against rows of callSites
// (binutils' output): thumb `bl 10000` at 0x310002, `bl 81007a` at
// 0x310006; arm64 `bl 400000` at 0x3400004, `bl 7400038` at 0x3400008.
func TestEncoders(t *testing.T) {
	for _, c := range []struct {
		got  []byte
		want string
	}{
		{thumbBL(0x310002, 0x10000), "fff4fdff"},
		{thumbBL(0x310006, 0x81007a), "00f138f0"},
		{a64BL(0x3400004, 0x400000), "ffff3f97"},
		{a64BL(0x3400008, 0x7400038), "0c000095"},
	} {
		if hex.EncodeToString(c.got) != c.want {
			t.Errorf("encoded %x, binutils %s", c.got, c.want)
		}
	}
}

const (
	mod   = 0x40000000
	stack = 0x80000000
)

// The module's functions: the callee (where the context frame is, no CFI),
// one holding a stale address, the real caller, and another function.
// On ARM the callee and "other" are PUBLIC symbols with the Thumb bit, as
// dump_syms writes static glibc's.
const (
	calleeOff = 0x1000
	staleOff  = 0x2000
	callerOff = 0x3000
	otherOff  = 0x4000
)

// candidates: return addresses (module offsets) and the code before them.
type codeAt struct {
	off  uint64 // module offset where the bytes end (the return address)
	code []byte
}

// armCandidates builds Thumb code: A after `nop; bx lr` (no call), B after
// `bl other`, C after `bl callee`, D after `nop; blx r3`.
func armCandidates() (a, b, c, d codeAt) {
	a = codeAt{staleOff + 0x10, []byte{0xc0, 0x46, 0x70, 0x47}}
	b = codeAt{callerOff + 0x20, thumbBL(mod+callerOff+0x1c, mod+otherOff)}
	c = codeAt{callerOff + 0x40, thumbBL(mod+callerOff+0x3c, mod+calleeOff)}
	d = codeAt{callerOff + 0x60, []byte{0xc0, 0x46, 0x98, 0x47}}
	return
}

// a64Candidates: A after `ret`, B after `bl other`, C after `bl callee`,
// D after `blr x3`.
func a64Candidates() (a, b, c, d codeAt) {
	a = codeAt{staleOff + 0x10, []byte{0xc0, 0x03, 0x5f, 0xd6}}
	b = codeAt{callerOff + 0x20, a64BL(mod+callerOff+0x1c, mod+otherOff)}
	c = codeAt{callerOff + 0x40, a64BL(mod+callerOff+0x3c, mod+calleeOff)}
	d = codeAt{callerOff + 0x60, []byte{0x60, 0x00, 0x3f, 0xd6}}
	return
}

// codeMemory holds the given code in two regions (the stale function's and
// the caller's), as a dump keeps code around the stack's words.
func codeMemory(cands ...codeAt) walker.Memory {
	regions := map[uint64]*walkertest.Memory{}
	for _, c := range cands {
		page := (mod + c.off) &^ 0xfff
		r := regions[page]
		if r == nil {
			r = &walkertest.Memory{Base: page, Data: make([]byte, 0x100)}
			regions[page] = r
		}
		copy(r.Data[mod+c.off-uint64(len(c.code))-page:], c.code)
	}
	var out walkertest.Regions
	for _, r := range regions {
		out = append(out, r)
	}
	return out
}

type archCase struct {
	name     string
	arch     walker.Arch
	cpu      minidump.Arch
	word     int
	pc, sp   int
	thumb    uint64 // added to each return address (the Thumb bit on ARM)
	syms     string
	cands    func() (a, b, c, d codeAt)
	junkRegs []int // registers set to junk so that only scanning works
}

var archCases = []archCase{
	{
		name: "arm", arch: arm.New(), cpu: minidump.ArchARM, word: 4,
		pc: minidump.ARMPC, sp: minidump.ARMSP, thumb: 1,
		syms: "MODULE Linux arm ID1 module1\n" +
			fmt.Sprintf("PUBLIC %x 0 callee\nFUNC %x 100 0 stale\nFUNC %x 100 0 caller\nPUBLIC %x 0 other\n", calleeOff+1, staleOff, callerOff, otherOff+1),
		cands:    armCandidates,
		junkRegs: []int{minidump.ARMLR, minidump.ARMR7, minidump.ARMFP},
	},
	{
		name: "arm64", arch: arm64.New(), cpu: minidump.ArchARM64, word: 8,
		pc: minidump.ARM64PC, sp: minidump.ARM64SP,
		syms: "MODULE Linux arm64 ID1 module1\n" +
			fmt.Sprintf("PUBLIC %x 0 callee\nFUNC %x 100 0 stale\nFUNC %x 100 0 caller\nPUBLIC %x 0 other\n", calleeOff, staleOff, callerOff, otherOff),
		cands:    a64Candidates,
		junkRegs: []int{minidump.ARM64LR, minidump.ARM64FP},
	},
}

// walk walks from a context frame in the callee whose stack holds words;
// code is Env.Code. It returns the PCs of the physical frames.
func (ac archCase) walk(t *testing.T, code walker.Memory, words ...uint64) []uint64 {
	t.Helper()
	data := make([]byte, max(0x200, len(words)*ac.word))
	for i, w := range words {
		if ac.word == 4 {
			binary.LittleEndian.PutUint32(data[i*4:], uint32(w))
		} else {
			binary.LittleEndian.PutUint64(data[i*8:], w)
		}
	}
	ctx := minidump.NewContext(ac.cpu)
	for _, r := range ac.junkRegs {
		ctx.SetIndex(r, 0)
	}
	ctx.SetIndex(ac.pc, mod+calleeOff+0x10+ac.thumb)
	ctx.SetIndex(ac.sp, stack)
	env := &walker.Env{
		OS:      "linux",
		Memory:  &walkertest.Memory{Base: stack, Data: data},
		Code:    code,
		Modules: walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "module1", mod, 0x10000)}),
		Symbols: walkertest.NewSymbols(t, map[string]string{"module1": ac.syms}),
	}
	st := walker.Walk(env, ac.arch, ctx)
	var pcs []uint64
	for _, f := range st.Frames {
		pc, _ := f.Context.Index(ac.pc)
		pcs = append(pcs, pc)
	}
	return pcs
}

func TestScanByCallSite(t *testing.T) {
	for _, ac := range archCases {
		t.Run(ac.name, func(t *testing.T) {
			a, b, c, d := ac.cands()
			code := codeMemory(a, b, c, d)
			ra := func(x codeAt) uint64 { return mod + x.off + ac.thumb }
			start := mod + calleeOff + 0x10 + ac.thumb
			for _, tc := range []struct {
				name   string
				code   walker.Memory
				stack  []uint64
				caller uint64 // frame 1's PC
			}{
				// A follows no call: skipped; C follows a call to
				// the callee's own function: taken over B (a call
				// to another function).
				{"confirmed over stale and contradicted", code, []uint64{ra(a), ra(b), ra(c)}, ra(c)},
				// Nothing confirmed: the first candidate that follows
				// a call, even one to another function (a tail call:
				// other tail-called the callee).
				{"tail call keeps the first call", code, []uint64{ra(a), ra(b)}, ra(b)},
				{"confirmed over indirect", code, []uint64{ra(a), ra(d), ra(c)}, ra(c)},
				{"indirect", code, []uint64{ra(a), ra(d)}, ra(d)},
				// Without code: the first plausible word, as before.
				{"no code", nil, []uint64{ra(a), ra(b), ra(c)}, ra(a)},
			} {
				pcs := ac.walk(t, tc.code, tc.stack...)
				if len(pcs) < 2 || pcs[0] != start || pcs[1] != tc.caller {
					t.Errorf("%s: frames %x, want caller %#x", tc.name, pcs, tc.caller)
				}
			}
			// No code, or code that holds none of these bytes: the
			// walk is the same, frame for frame.
			words := []uint64{ra(a), ra(b), ra(c), ra(d)}
			none := ac.walk(t, nil, words...)
			empty := ac.walk(t, walkertest.Regions{{Base: mod + 0x8000, Data: make([]byte, 16)}}, words...)
			if fmt.Sprint(none) != fmt.Sprint(empty) || len(none) < 3 {
				t.Errorf("without code %x, with code elsewhere %x", none, empty)
			}
		})
	}
}

// TestScanPACSigned: an arm64 return address signed with pointer
// authentication bits is stripped before its call site is read.
func TestScanPACSigned(t *testing.T) {
	ac := archCases[1]
	a, b, c, _ := ac.cands()
	signed := mod + c.off | 0x002a<<48
	pcs := ac.walk(t, codeMemory(a, b, c), mod+a.off, mod+b.off, signed)
	if len(pcs) < 2 || pcs[1] != mod+c.off {
		t.Errorf("frames %x, want caller %#x", pcs, mod+c.off)
	}
}

// TestCallSiteContradicts covers the function the frame-pointer steps use.
func TestCallSiteContradicts(t *testing.T) {
	for _, ac := range archCases {
		t.Run(ac.name, func(t *testing.T) {
			a, b, c, d := ac.cands()
			env := &walker.Env{
				Code:    codeMemory(a, b, c, d),
				Modules: walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "module1", mod, 0x10000)}),
				Symbols: walkertest.NewSymbols(t, map[string]string{"module1": ac.syms}),
			}
			w := walker.NewWalker(env)
			callee := &walker.Frame{Instruction: mod + calleeOff + 0x10, Context: minidump.NewContext(ac.cpu)}
			w.Symbolize(callee, false)
			ra := func(x codeAt) uint64 { return mod + x.off + ac.thumb }
			arch := retaddr.Arch{WordSize: ac.word}
			for _, tc := range []struct {
				name string
				ra   uint64
				want bool
			}{
				{"after no call", ra(a), true},
				{"after a call to another function", ra(b), true},
				{"after a call to the callee", ra(c), false},
				{"after an indirect call", ra(d), false},
				{"no code there", mod + 0x9000 + ac.thumb, false},
			} {
				if got := retaddr.CallSiteContradicts(w, callee, tc.ra, arch); got != tc.want {
					t.Errorf("%s (%#x): %v, want %v", tc.name, tc.ra, got, tc.want)
				}
			}
			w.Env.Code = nil
			if retaddr.CallSiteContradicts(w, callee, ra(a), arch) {
				t.Errorf("without code: contradicted")
			}
		})
	}
}

// TestScanPastWindow: the caller of a scanned frame keeps its return
// address 45 words up, past the 40-word window of a scanned frame (a large
// frame without CFI). A word there that follows a direct call to the
// scanned frame's function is taken (retaddr.confirmedBeyond); one that
// follows a call to another function is not, nor any without code.
func TestScanPastWindow(t *testing.T) {
	for _, ac := range archCases {
		t.Run(ac.name, func(t *testing.T) {
			a, b, c, d := ac.cands()
			bl := thumbBL
			if ac.word == 8 {
				bl = a64BL
			}
			// E: in the stale function, after `bl caller`; F: after `bl other`.
			e := codeAt{staleOff + 0x40, bl(mod+staleOff+0x3c, mod+callerOff)}
			f := codeAt{staleOff + 0x60, bl(mod+staleOff+0x5c, mod+otherOff)}
			code := codeMemory(a, b, c, d, e, f)
			ra := func(x codeAt) uint64 { return mod + x.off + ac.thumb }
			stackWith := func(far codeAt) []uint64 {
				words := make([]uint64, 47)
				words[0] = ra(d) // the callee's caller, after an indirect call
				words[46] = ra(far)
				return words
			}
			if pcs := ac.walk(t, code, stackWith(e)...); len(pcs) < 3 || pcs[1] != ra(d) || pcs[2] != ra(e) {
				t.Errorf("confirmed past the window: frames %x, want %#x then %#x", pcs, ra(d), ra(e))
			}
			if pcs := ac.walk(t, code, stackWith(f)...); len(pcs) != 2 {
				t.Errorf("a call to another function past the window: frames %x, want 2", pcs)
			}
			if pcs := ac.walk(t, nil, stackWith(e)...); len(pcs) != 2 {
				t.Errorf("without code: frames %x, want 2", pcs)
			}
		})
	}
}

// TestScanPastLargeFrame: a caller's return address 1 KiB and more above a
// scanned frame (testdata's *-large cases: a 1 KiB buffer is 260 words on
// arm, past four times the window) is still taken when it follows a
// direct call to the scanned frame's function, up to 16 KiB above the
// scanned frame's caller's sp; beyond that the search stops.
func TestScanPastLargeFrame(t *testing.T) {
	for _, ac := range archCases {
		t.Run(ac.name, func(t *testing.T) {
			a, b, c, d := ac.cands()
			bl := thumbBL
			if ac.word == 8 {
				bl = a64BL
			}
			e := codeAt{staleOff + 0x40, bl(mod+staleOff+0x3c, mod+callerOff)}
			code := codeMemory(a, b, c, d, e)
			ra := func(x codeAt) uint64 { return mod + x.off + ac.thumb }
			limit := 16 << 10 / ac.word // words above the scanned frame's sp
			for _, tc := range []struct {
				at   int // index of e's word; the scanned frame's sp is at index 1
				want int
			}{{270, 3}, {1 + limit, 3}, {2 + limit, 2}} {
				words := make([]uint64, tc.at+1)
				words[0] = ra(d) // the callee's caller, after an indirect call
				words[tc.at] = ra(e)
				pcs := ac.walk(t, code, words...)
				if len(pcs) != tc.want || (tc.want == 3 && pcs[2] != ra(e)) {
					t.Errorf("caller's word %d words up: frames %x, want %d", tc.at, pcs, tc.want)
				}
			}
		})
	}
}
