package elfsupplier

import (
	"encoding/binary"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/prologue"
)

// addCallTargets adds the targets of the direct calls in the module's
// code to its function starts: a function that has neither an unwind
// entry nor a symbol (a stripped glibc object assembled without
// .ARM.exidx, whose linker-made EXIDX_CANTUNWIND entry starts at its
// section, not at each function) starts where its callers call it.
// Every position a call could be decoded at is read (Thumb at each
// halfword, x86 at each byte): a false target lands in code rarely.
func (m *Module) addCallTargets() {
	for _, s := range m.segs {
		for _, t := range callTargets(m.arch, s) {
			if m.inCode(t.rel) {
				m.starts = append(m.starts, t.rel)
				if t.thumb {
					m.thumb[t.rel] = true
				}
			}
		}
	}
}

type target struct {
	rel   uint64
	thumb bool
}

// callTargets decodes BL/BLX (ARM and Thumb), BL (A64) and CALL rel32.
func callTargets(a prologue.Arch, s segment) []target {
	var out []target
	d := s.data
	switch a {
	case prologue.ARM:
		for i := 0; i+4 <= len(d); i += 2 {
			hw1, hw2 := uint64(binary.LittleEndian.Uint16(d[i:])), uint64(binary.LittleEndian.Uint16(d[i+2:]))
			if hw1&0xf800 == 0xf000 && hw2&0xd000 == 0xd000 { // Thumb BL
				out = append(out, target{thumbBranch(s.rel+uint64(i), hw1, hw2), true})
			} else if hw1&0xf800 == 0xf000 && hw2&0xd001 == 0xc000 { // Thumb BLX to ARM
				out = append(out, target{thumbBranch(s.rel+uint64(i), hw1, hw2) &^ 3, false})
			}
			if i%4 == 0 {
				w := uint64(binary.LittleEndian.Uint32(d[i:]))
				if w>>28 != 0xf && w&0x0f000000 == 0x0b000000 { // ARM BL
					out = append(out, target{s.rel + uint64(i) + 8 + signExtend(w&0xffffff<<2, 26), false})
				} else if w>>28 == 0xf && w&0x0e000000 == 0x0a000000 { // ARM BLX to Thumb
					out = append(out, target{s.rel + uint64(i) + 8 + signExtend(w&0xffffff<<2|w>>24&1<<1, 26), true})
				}
			}
		}
	case prologue.ARM64:
		for i := 0; i+4 <= len(d); i += 4 {
			if w := uint64(binary.LittleEndian.Uint32(d[i:])); w&0xfc000000 == 0x94000000 {
				out = append(out, target{s.rel + uint64(i) + signExtend((w&0x3ffffff)<<2, 28), false})
			}
		}
	case prologue.X86, prologue.AMD64:
		for i := 0; i+5 <= len(d); i++ {
			if d[i] == 0xe8 {
				rel := uint64(int64(int32(binary.LittleEndian.Uint32(d[i+1:]))))
				out = append(out, target{s.rel + uint64(i) + 5 + rel, false})
			}
		}
	}
	return out
}

// thumbBranch is the target of a Thumb BL or BLX at pc (ARM ARM A8.8.25).
func thumbBranch(pc, hw1, hw2 uint64) uint64 {
	s := hw1 >> 10 & 1
	j1, j2 := hw2>>13&1, hw2>>11&1
	i1, i2 := ^(j1^s)&1, ^(j2^s)&1
	imm := s<<24 | i1<<23 | i2<<22 | (hw1&0x3ff)<<12 | (hw2&0x7ff)<<1
	return pc + 4 + signExtend(imm, 25)
}

func signExtend(v uint64, bits uint) uint64 {
	shift := 64 - bits
	return uint64(int64(v<<shift) >> shift)
}
