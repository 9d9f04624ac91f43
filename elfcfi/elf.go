package elfcfi

import (
	"debug/elf"
	"fmt"
	"io"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/dwarfsyms"
)

// Tables are the unwind tables of one ELF file; any may be nil.
type Tables struct {
	EHFrame    *Section
	DebugFrame *Section
	Exidx      *Exidx
}

// FromELF reads the unwind tables of f. A table that is malformed is an
// error; a missing one is nil.
func FromELF(f *elf.File) (*Tables, error) {
	arch := Arch{Machine: f.Machine, Order: f.ByteOrder, PtrSize: 4}
	if f.Class == elf.ELFCLASS64 {
		arch.PtrSize = 8
	}
	if s := f.Section(".text"); s != nil {
		arch.TextAddr = s.Addr
	}
	if s := f.Section(".got"); s != nil && f.Machine == elf.EM_386 {
		arch.DataAddr = s.Addr
	}
	if err := dwarfsyms.CheckCompressed(f, dwarfsyms.MaxDecompressed); err != nil {
		return nil, fmt.Errorf("elfcfi: %w", err)
	}
	t := &Tables{}
	if s := f.Section(".eh_frame"); s != nil && s.Type != elf.SHT_NOBITS {
		data, err := sectionData(s)
		if err != nil {
			return nil, err
		}
		var hdr []byte
		var hdrAddr uint64
		if h := f.Section(".eh_frame_hdr"); h != nil && h.Type != elf.SHT_NOBITS {
			if hdr, err = sectionData(h); err != nil {
				return nil, err
			}
			hdrAddr = h.Addr
		}
		if t.EHFrame, err = NewEHFrame(data, s.Addr, hdr, hdrAddr, arch); err != nil {
			return nil, err
		}
	}
	if s := f.Section(".debug_frame"); s != nil && s.Type != elf.SHT_NOBITS {
		data, err := sectionData(s)
		if err != nil {
			return nil, err
		}
		if t.DebugFrame, err = NewDebugFrame(data, arch); err != nil {
			return nil, err
		}
	}
	if f.Machine == elf.EM_ARM {
		var ex *elf.Section
		for _, s := range f.Sections {
			if s.Type == shtARMExidx {
				ex = s
				break
			}
		}
		if ex != nil {
			exData, err := sectionData(ex)
			if err != nil {
				return nil, err
			}
			var tab []byte
			var tabAddr uint64
			if s := f.Section(".ARM.extab"); s != nil && s.Type != elf.SHT_NOBITS {
				if tab, err = sectionData(s); err != nil {
					return nil, err
				}
				tabAddr = s.Addr
			}
			if t.Exidx, err = NewExidx(exData, ex.Addr, tab, tabAddr, f.ByteOrder); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// sectionData reads a section (decompressing SHF_COMPRESSED ones), bounded
// by maxSectionSize.
func sectionData(s *elf.Section) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(s.Open(), maxSectionSize+1))
	if err != nil {
		return nil, fmt.Errorf("elfcfi: section %s: %w", s.Name, err)
	}
	if len(data) > maxSectionSize {
		return nil, formatErr(s.Name, 0, "section over the %d byte limit", maxSectionSize)
	}
	return data, nil
}

// shtARMExidx is SHT_ARM_EXIDX, which debug/elf does not name.
const shtARMExidx = elf.SectionType(0x70000001)
