package pdb

import "fmt"

// FPO is an FPO_DATA record of the DBI's FPO stream: how a 32-bit x86
// function without a frame pointer lays out its frame.
type FPO struct {
	RVA       uint32
	Size      uint32
	Locals    uint32 // bytes (the record counts dwords)
	Params    uint32 // bytes
	Prolog    uint8
	SavedRegs uint8
	HasSEH    bool
	UsesBP    bool
	FrameKind uint8 // FRAME_FPO 0, FRAME_TRAP 1, FRAME_TSS 2, FRAME_NONFPO 3
}

// FrameData is a record of the "new FPO" stream: an x86 function's frame
// as a postfix program (Breakpad's STACK WIN type 4).
type FrameData struct {
	RVA           uint32
	CodeSize      uint32
	LocalSize     uint32
	ParamsSize    uint32
	MaxStackSize  uint32
	Program       string
	PrologSize    uint16
	SavedRegsSize uint16
	HasSEH        bool
	HasEH         bool
	FunctionStart bool
}

const (
	fpoSize       = 16
	frameDataSize = 32
	// maxFrameRecords bounds either stream's records.
	maxFrameRecords = 1 << 24
)

// FPO reads the FPO stream; nil when the PDB has none.
func (f *File) FPO() ([]FPO, error) {
	b, s, err := f.debugStreamBytes(DebugFPO)
	if b == nil || err != nil {
		return nil, err
	}
	r := newReader(s, b, 0)
	n := r.count(uint32(len(b)/fpoSize), fpoSize, "FPO records")
	if n > maxFrameRecords {
		return nil, errAt(s, 0, "%d FPO records, more than %d", n, maxFrameRecords)
	}
	out := make([]FPO, n)
	for i := range out {
		e := &out[i]
		e.RVA, e.Size, e.Locals = r.u32(), r.u32(), r.u32()*4
		e.Params = uint32(r.u16()) * 4
		attrs := r.u16()
		e.Prolog = uint8(attrs)
		e.SavedRegs = uint8(attrs>>8) & 7
		e.HasSEH, e.UsesBP = attrs&(1<<11) != 0, attrs&(1<<12) != 0
		e.FrameKind = uint8(attrs >> 14)
	}
	return out, r.err
}

// FrameData reads the FrameData ("new FPO") stream with each record's
// program from /names; nil when the PDB has none.
func (f *File) FrameData() ([]FrameData, error) {
	b, s, err := f.debugStreamBytes(DebugFrameData)
	if b == nil || err != nil {
		return nil, err
	}
	strs, err := f.Strings()
	if err != nil {
		return nil, err
	}
	r := newReader(s, b, 0)
	if len(b)%frameDataSize == 4 {
		r.u32() // the subsection's relocation pointer
	}
	n := r.count(uint32(r.left()/frameDataSize), frameDataSize, "FrameData records")
	if n > maxFrameRecords {
		return nil, errAt(s, 0, "%d FrameData records, more than %d", n, maxFrameRecords)
	}
	out := make([]FrameData, n)
	for i := range out {
		e := &out[i]
		e.RVA, e.CodeSize, e.LocalSize, e.ParamsSize, e.MaxStackSize = r.u32(), r.u32(), r.u32(), r.u32(), r.u32()
		prog := r.u32()
		e.PrologSize, e.SavedRegsSize = r.u16(), r.u16()
		flags := r.u32()
		e.HasSEH, e.HasEH, e.FunctionStart = flags&1 != 0, flags&2 != 0, flags&4 != 0
		if r.err != nil {
			return nil, r.err
		}
		if e.Program, err = strs.At(prog); err != nil {
			return nil, fmt.Errorf("FrameData record %d: %w", i, err)
		}
	}
	return out, nil
}

func (f *File) debugStreamBytes(i int) ([]byte, int, error) {
	d, err := f.DBI()
	if err != nil {
		return nil, 0, err
	}
	s, ok := d.debugStream(i)
	if !ok {
		return nil, 0, nil
	}
	if _, ok := f.StreamSize(s); !ok {
		return nil, 0, nil
	}
	b, err := f.Stream(s)
	return b, s, err
}
