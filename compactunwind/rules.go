package compactunwind

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
)

// Modes of x86_64 and arm64 encodings (Entry.Mode).
const (
	X86_64ModeRBPFrame      = 1
	X86_64ModeStackImmd     = 2
	X86_64ModeStackInd      = 3
	X86_64ModeDWARF         = 4
	ARM64ModeFrameless      = 2
	ARM64ModeDWARF          = 3
	ARM64ModeFrame          = 4
	dwarfSectionOffsetMask  = 0x00ffffff
	x86_64RegNone           = 0
	arm64FramelessSizeShift = 12
)

// ErrNoRules is returned for an entry whose encoding gives no rules: 0 (no
// unwind information) or a mode the architecture does not define.
var ErrNoRules = errors.New("compactunwind: encoding gives no unwind rules")

// ErrDWARF is returned by Rules for a DWARF-mode entry: its rules are
// those of the __eh_frame FDE at DWARFOffset.
var ErrDWARF = errors.New("compactunwind: rules are in __eh_frame")

// DWARFOffset is the offset in __eh_frame of a DWARF-mode entry's FDE, and
// whether the entry is in DWARF mode.
func (e Entry) DWARFOffset(arch Arch) (uint64, bool) {
	m := e.Mode()
	if (arch == X86_64 && m == X86_64ModeDWARF) || (arch == ARM64 && m == ARM64ModeDWARF) {
		return uint64(e.Encoding & dwarfSectionOffsetMask), true
	}
	return 0, false
}

// CodeReader reads the image's bytes at an address (the x86_64
// indirect-stack-size encoding reads an immediate from the code).
type CodeReader func(addr uint64, p []byte) error

// Rules are the register rules of an entry as Breakpad's STACK CFI records
// write them: ".cfa", ".ra" and register names to postfix expressions.
type Rules map[string]string

// x86_64 register numbers of the encodings (UNWIND_X86_64_REG_*).
var x86_64Regs = [...]string{"", "$rbx", "$r12", "$r13", "$r14", "$r15", "$rbp"}

// Rules returns the rules entry e's encoding gives at every address of e
// after the function's prologue. It returns ErrDWARF for a DWARF-mode
// entry and ErrNoRules for one without unwind information.
func (e Entry) Rules(arch Arch, code CodeReader) (Rules, error) {
	if e.Encoding&ModeMask == 0 {
		return nil, ErrNoRules
	}
	if _, ok := e.DWARFOffset(arch); ok {
		return nil, ErrDWARF
	}
	switch arch {
	case X86_64:
		switch e.Mode() {
		case X86_64ModeRBPFrame:
			return rbpFrame(e.Encoding), nil
		case X86_64ModeStackImmd, X86_64ModeStackInd:
			return e.frameless(code)
		}
	case ARM64:
		switch e.Mode() {
		case ARM64ModeFrame:
			r := Rules{".cfa": "x29 16 +", ".ra": ".cfa -8 + ^", "x29": ".cfa -16 + ^"}
			arm64Pairs(r, e.Encoding, 24)
			return r, nil
		case ARM64ModeFrameless:
			size := 16 * uint64((e.Encoding>>arm64FramelessSizeShift)&0xfff)
			r := Rules{".cfa": "sp " + strconv.FormatUint(size, 10) + " +", ".ra": "x30"}
			arm64Pairs(r, e.Encoding, 8)
			return r, nil
		}
	}
	return nil, fmt.Errorf("%w: mode %d of encoding %#08x", ErrNoRules, e.Mode(), e.Encoding)
}

func at(off uint64) string { return ".cfa -" + strconv.FormatUint(off, 10) + " + ^" }

// rbpFrame: push %rbp; mov %rsp,%rbp; registers saved at rbp-8*offset, one
// 8-byte slot per 3-bit field (a zero field is an unused slot).
func rbpFrame(enc uint32) Rules {
	r := Rules{".cfa": "$rbp 16 +", ".ra": at(8), "$rbp": at(16)}
	offset := uint64(enc>>16) & 0xff
	regs := enc & 0x7fff
	// rbp = CFA-16, so slot i is at CFA-16-8*offset+8*i.
	for i := uint64(0); i < 5; i, regs = i+1, regs>>3 {
		reg := regs & 7
		if reg == x86_64RegNone || int(reg) >= len(x86_64Regs) || 16+8*offset < 8*i {
			continue
		}
		if loc := 16 + 8*offset - 8*i; loc > 16 {
			r[x86_64Regs[reg]] = at(loc)
		}
	}
	return r
}

// frameless: the stack size includes the return address; the registers
// were pushed in the decoded order right below it.
func (e Entry) frameless(code CodeReader) (Rules, error) {
	enc := e.Encoding
	size := uint64(enc>>16) & 0xff
	adjust := uint64(enc>>13) & 7
	count := int(enc>>10) & 7
	if e.Mode() == X86_64ModeStackInd {
		if code == nil {
			return nil, fmt.Errorf("%w: indirect stack size needs the code", ErrNoRules)
		}
		var imm [4]byte
		if err := code(e.Start+size, imm[:]); err != nil {
			return nil, fmt.Errorf("stack size immediate at %#x: %w", e.Start+size, err)
		}
		size = uint64(binary.LittleEndian.Uint32(imm[:])) + 8*adjust
	} else {
		size *= 8
	}
	if count > 6 {
		return nil, fmt.Errorf("%w: %d saved registers in encoding %#08x", ErrNoRules, count, enc)
	}
	regs, ok := permutation(enc&0x3ff, count)
	if !ok || 8+8*uint64(count) > size {
		return nil, fmt.Errorf("%w: registers %d (permutation %#x) in a stack of %d bytes", ErrNoRules, count, enc&0x3ff, size)
	}
	r := Rules{".cfa": "$rsp " + strconv.FormatUint(size, 10) + " +", ".ra": at(8)}
	for i, reg := range regs {
		r[x86_64Regs[reg]] = at(8 + 8*uint64(count-i))
	}
	return r, nil
}

// permutation decodes the saved registers' order (UNWIND_X86_64_REG_*,
// first pushed first) from its Lehmer-code encoding.
func permutation(p uint32, count int) ([]int, bool) {
	digits := make([]int, count)
	for i := 0; i < count; i++ {
		div := uint32(1) // (5-i)(4-i)... over count-1-i factors
		for k := 0; k < count-1-i; k++ {
			div *= uint32(5 - i - k)
		}
		digits[i] = int(p / div)
		p -= uint32(digits[i]) * div
	}
	var used [7]bool
	out := make([]int, 0, count)
	for _, d := range digits {
		renum := 0
		found := false
		for u := 1; u < 7; u++ {
			if used[u] {
				continue
			}
			if renum == d {
				out = append(out, u)
				used[u], found = true, true
				break
			}
			renum++
		}
		if !found {
			return nil, false
		}
	}
	return out, true
}

// arm64Pairs adds the x19-x28 pairs, saved from CFA-first downward (the
// d8-d15 pairs below them are left out: no walker restores them).
func arm64Pairs(r Rules, enc uint32, first uint64) {
	loc := first
	for i := 0; i < 5; i++ {
		if enc&(1<<i) == 0 {
			continue
		}
		r["x"+strconv.Itoa(19+2*i)] = at(loc)
		r["x"+strconv.Itoa(20+2*i)] = at(loc + 8)
		loc += 16
	}
}

// Row is the rules from an address on.
type Row struct {
	Addr  uint64
	Rules Rules
}

// Rows returns the rules of entry e by address. At e.Start, the
// function's first instruction, nothing is pushed yet: the CFA is the
// stack pointer as the call left it (x86_64: rsp+8, the return address at
// CFA-8; arm64: sp, the return address in x30). The encoding's rules hold
// once the prologue has run; for an x86_64 RBP frame whose code starts
// with "push %rbp; mov %rsp, %rbp" (55 48 89 e5), and an arm64 frame
// starting with "stp x29, x30, [sp, #-16]!; mov x29, sp", the rows after
// each of the two are exact, otherwise the encoding's rules start at
// the next instruction (the saved registers' rules hold once they are
// pushed). A function must start at e.Start (see dumpsyms' splitting of
// merged entries at function starts).
func (e Entry) Rows(arch Arch, code CodeReader) ([]Row, error) {
	body, err := e.Rules(arch, code)
	if err != nil {
		return nil, err
	}
	entry := Rules{".cfa": "$rsp 8 +", ".ra": at(8)}
	next := e.Start + 1 // x86_64: no instruction starts inside the first
	if arch == ARM64 {
		entry, next = Rules{".cfa": "sp 0 +", ".ra": "x30"}, e.Start+4
	}
	if arch == X86_64 && e.Mode() == X86_64ModeRBPFrame && code != nil && e.End-e.Start > 4 {
		var p [4]byte
		if code(e.Start, p[:]) == nil && p == [4]byte{0x55, 0x48, 0x89, 0xe5} {
			return []Row{
				{e.Start, entry},
				{e.Start + 1, Rules{".cfa": "$rsp 16 +", "$rbp": at(16)}},
				{e.Start + 4, body},
			}, nil
		}
	}
	if arch == ARM64 && e.Mode() == ARM64ModeFrame && code != nil && e.End-e.Start > 8 {
		var p [8]byte // stp x29, x30, [sp, #-16]!; mov x29, sp
		if code(e.Start, p[:]) == nil && p == [8]byte{0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03, 0x00, 0x91} {
			return []Row{
				{e.Start, entry},
				{e.Start + 4, Rules{".cfa": "sp 16 +", ".ra": at(8), "x29": at(16)}},
				{e.Start + 8, body},
			}, nil
		}
	}
	if len(body) == len(entry) && body[".cfa"] == entry[".cfa"] && body[".ra"] == entry[".ra"] || e.End <= next {
		return []Row{{e.Start, body}}, nil
	}
	return []Row{{e.Start, entry}, {next, body}}, nil
}
