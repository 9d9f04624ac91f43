package elfcfi

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// seedSections adds the named section of each test binary to f's corpus.
func seedSections(f *testing.F, name string) {
	for _, tf := range testFiles[:8] {
		ef, err := elf.NewFile(bytes.NewReader(corpus.ReadZstd(f, tf.binary)))
		if err != nil {
			f.Fatal(err)
		}
		if s := ef.Section(name); s != nil {
			data, err := s.Data()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data, ef.Class == elf.ELFCLASS64)
		}
	}
}

// exerciseSection runs every lookup and interpreter path of a section.
func exerciseSection(s *Section) {
	fdes, _ := s.Entries()
	env := &ExprEnv{Reg: func(r uint64) (uint64, bool) { return r * 8, true },
		Mem: func(a uint64, _ int) (uint64, bool) { return a ^ 0x55, a%3 != 0 }, AddrSize: s.arch.PtrSize, Order: s.arch.Order}
	for i, fde := range fdes {
		if i > 64 {
			break
		}
		rows, _ := fde.Rows()
		for _, r := range rows {
			r.Unwind(env)
		}
		s.Find(fde.Begin)
		fde.RowAt(fde.End - 1)
	}
	s.Find(0x1000)
}

func arch(is64 bool, m elf.Machine) Arch {
	if is64 {
		return Arch{Machine: m, Order: binary.LittleEndian, PtrSize: 8}
	}
	return Arch{Machine: m, Order: binary.LittleEndian, PtrSize: 4}
}

func FuzzEHFrame(f *testing.F) {
	seedSections(f, ".eh_frame")
	f.Fuzz(func(t *testing.T, data []byte, is64 bool) {
		s, err := NewEHFrame(data, 0x1000, nil, 0, arch(is64, elf.EM_AARCH64))
		if err != nil {
			return
		}
		exerciseSection(s)
	})
}

func FuzzEHFrameHdr(f *testing.F) {
	seedSections(f, ".eh_frame_hdr")
	f.Fuzz(func(t *testing.T, hdr []byte, is64 bool) {
		eh := []byte{0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 0x10, 1, 0x1b, 0x0c, 7, 8, 0x90, 1, 0, 0}
		s, err := NewEHFrame(eh, 0x1000, hdr, 0x800, arch(is64, elf.EM_X86_64))
		if err != nil {
			return
		}
		for _, pc := range []uint64{0, 0x800, 0x1000, 0x2000, ^uint64(0)} {
			s.Find(pc)
		}
	})
}

func FuzzDebugFrame(f *testing.F) {
	seedSections(f, ".debug_frame")
	f.Fuzz(func(t *testing.T, data []byte, is64 bool) {
		s, err := NewDebugFrame(data, arch(is64, elf.EM_X86_64))
		if err != nil {
			return
		}
		exerciseSection(s)
	})
}

func FuzzExidx(f *testing.F) {
	ef, err := elf.NewFile(bytes.NewReader(corpus.ReadZstd(f, "testdata/arm-eh.zst")))
	if err != nil {
		f.Fatal(err)
	}
	ex, _ := ef.Section(".ARM.exidx").Data()
	tab, _ := ef.Section(".ARM.extab").Data()
	f.Add(ex, tab)
	f.Fuzz(func(t *testing.T, ex, tab []byte) {
		x, err := NewExidx(ex, 0x1000, tab, 0x2000, binary.LittleEndian)
		if err != nil {
			return
		}
		var regs ARMRegs
		for r := 0; r < 16; r++ {
			regs.Set(r, uint32(r)*0x100)
		}
		mem := func(a uint64, _ int) (uint64, bool) { return a + 4, a%5 != 0 }
		for i := 0; i < x.Len() && i < 256; i++ {
			e, err := x.Entry(i)
			if err != nil {
				continue
			}
			DecodeExidxOps(e.Ops)
			e.Unwind(regs, mem)
			x.Find(e.Func)
		}
	})
}

func FuzzEvalExpr(f *testing.F) {
	f.Add([]byte{0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22}, false)
	f.Add([]byte{0x75, 0x70, 0x06}, true)
	f.Add([]byte{0x33, 0x31, 0x1c, 0x12, 0x28, 0xfa, 0xff}, true)
	f.Fuzz(func(t *testing.T, expr []byte, is64 bool) {
		size := 4
		if is64 {
			size = 8
		}
		env := &ExprEnv{Reg: func(r uint64) (uint64, bool) { return r << 4, r < 40 },
			Mem: func(a uint64, _ int) (uint64, bool) { return a * 3, a&1 == 0 }, AddrSize: size, Order: binary.LittleEndian}
		v, err := EvalExpr(expr, env, 0x7000)
		if err == nil && size == 4 && v > 0xffffffff {
			t.Fatalf("32-bit result %#x", v)
		}
	})
}
