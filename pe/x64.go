package pe

import (
	"fmt"
	"sort"
)

// RuntimeFunction is an x64 RUNTIME_FUNCTION entry of the exception
// directory: the function's RVA range and its UNWIND_INFO's RVA.
type RuntimeFunction struct {
	Begin, End uint32
	UnwindInfo uint32
}

// MaxRuntimeFunctions bounds the exception directory (a 100 MB DLL has a
// few hundred thousand entries).
const MaxRuntimeFunctions = 1 << 22

// RuntimeFunctions returns the x64 exception directory's entries sorted by
// Begin, nil without error when the image has none. Entries whose range
// is empty are dropped.
func (f *File) RuntimeFunctions() ([]RuntimeFunction, error) {
	raw, err := f.exceptionDir(12)
	if raw == nil {
		return nil, err
	}
	out := make([]RuntimeFunction, 0, len(raw)/12)
	for i := 0; i+12 <= len(raw); i += 12 {
		rf := RuntimeFunction{le.Uint32(raw[i:]), le.Uint32(raw[i+4:]), le.Uint32(raw[i+8:])}
		if rf.End > rf.Begin {
			out = append(out, rf)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Begin < out[j].Begin })
	return out, nil
}

// exceptionDir reads the exception directory of entries of size bytes.
func (f *File) exceptionDir(size int) ([]byte, error) {
	d := f.Dir(DirException)
	if d.RVA == 0 || d.Size == 0 {
		return nil, nil
	}
	n := int64(d.Size) / int64(size)
	if n > MaxRuntimeFunctions {
		return nil, rvaErr("exception directory", d.RVA, "%d entries, more than %d", n, MaxRuntimeFunctions)
	}
	return f.BytesAtRVA("exception directory", d.RVA, int(n)*size)
}

// LookupFunction returns the entry of fns (sorted, as RuntimeFunctions
// returns them) whose range contains rva.
func LookupFunction(fns []RuntimeFunction, rva uint32) (RuntimeFunction, bool) {
	i := sort.Search(len(fns), func(i int) bool { return fns[i].Begin > rva }) - 1
	if i < 0 || rva >= fns[i].End {
		return RuntimeFunction{}, false
	}
	return fns[i], true
}

// x64 UNWIND_INFO flags (UNW_FLAG_*).
const (
	UnwindFlagEHandler  = 1
	UnwindFlagUHandler  = 2
	UnwindFlagChainInfo = 4
)

// UnwindOp is an x64 unwind operation code (UWOP_*).
type UnwindOp uint8

// x64 unwind operations.
const (
	OpPushNonvol     UnwindOp = 0
	OpAllocLarge     UnwindOp = 1
	OpAllocSmall     UnwindOp = 2
	OpSetFPReg       UnwindOp = 3
	OpSaveNonvol     UnwindOp = 4
	OpSaveNonvolFar  UnwindOp = 5
	OpEpilog         UnwindOp = 6 // version 2; version 1's SAVE_XMM
	OpSpareCode      UnwindOp = 7 // version 2; version 1's SAVE_XMM_FAR
	OpSaveXMM128     UnwindOp = 8
	OpSaveXMM128Far  UnwindOp = 9
	OpPushMachFrame  UnwindOp = 10
	maxUnwindOpKnown          = 10
)

var opNames = [...]string{"PUSH_NONVOL", "ALLOC_LARGE", "ALLOC_SMALL", "SET_FPREG", "SAVE_NONVOL",
	"SAVE_NONVOL_FAR", "EPILOG", "SPARE_CODE", "SAVE_XMM128", "SAVE_XMM128_FAR", "PUSH_MACHFRAME"}

func (o UnwindOp) String() string {
	if int(o) < len(opNames) {
		return "UWOP_" + opNames[o]
	}
	return fmt.Sprintf("UWOP_%d", uint8(o))
}

// UnwindCode is one decoded x64 unwind operation (one to three slots of
// the code array).
type UnwindCode struct {
	CodeOffset uint8 // prolog offset of the end of the instruction
	Op         UnwindOp
	Info       uint8 // register number (0 = rax ... 15 = r15; XMM number); PUSH_MACHFRAME: 1 with an error code
	// Value is, in bytes: the size an ALLOC allocates, the offset a SAVE
	// saves at (from the frame base), 0 otherwise.
	Value uint32
}

// Epilog is a version 2 epilog: where it starts, as a distance back from
// the function's end.
type Epilog struct {
	FromEnd uint32
}

// UnwindInfo is a decoded x64 UNWIND_INFO.
type UnwindInfo struct {
	RVA           uint32
	Version       uint8
	Flags         uint8
	PrologSize    uint8
	FrameRegister uint8 // 0: none
	FrameOffset   uint32
	Codes         []UnwindCode // in array order: the last prolog instruction first
	// EpilogSize and Epilogs are version 2's epilog codes.
	EpilogSize uint8
	Epilogs    []Epilog
	Handler    uint32           // with UnwindFlagEHandler or UnwindFlagUHandler
	Chained    *RuntimeFunction // with UnwindFlagChainInfo
}

// UnwindInfoAt decodes the UNWIND_INFO at rva.
func (f *File) UnwindInfoAt(rva uint32) (*UnwindInfo, error) {
	hdr, err := f.BytesAtRVA("UNWIND_INFO", rva, 4)
	if err != nil {
		return nil, err
	}
	n := int(hdr[2])
	tail := 0
	if hdr[0]>>3&(UnwindFlagEHandler|UnwindFlagUHandler|UnwindFlagChainInfo) != 0 {
		tail = 12
	}
	all, err := f.BytesAtRVA("UNWIND_INFO", rva, 4+(n+n&1)*2+tail)
	if err != nil && tail != 0 { // a handler RVA needs only 4 bytes
		all, err = f.BytesAtRVA("UNWIND_INFO", rva, 4+(n+n&1)*2+4)
	}
	if err != nil {
		return nil, err
	}
	return DecodeUnwindInfo(all, rva)
}

// DecodeUnwindInfo decodes an x64 UNWIND_INFO from b, read at rva (for
// errors).
func DecodeUnwindInfo(b []byte, rva uint32) (*UnwindInfo, error) {
	if len(b) < 4 {
		return nil, rvaErr("UNWIND_INFO", rva, "%d bytes", len(b))
	}
	u := &UnwindInfo{RVA: rva, Version: b[0] & 7, Flags: b[0] >> 3, PrologSize: b[1],
		FrameRegister: b[3] & 15, FrameOffset: uint32(b[3]>>4) * 16}
	if u.Version != 1 && u.Version != 2 {
		return nil, rvaErr("UNWIND_INFO", rva, "version %d", u.Version)
	}
	n := int(b[2])
	end := 4 + n*2
	if len(b) < end {
		return nil, rvaErr("UNWIND_INFO", rva, "%d code slots need %d bytes, have %d", n, end, len(b))
	}
	if err := u.decodeCodes(b[4:end], rva); err != nil {
		return nil, err
	}
	var tail []byte
	if padded := 4 + (n+n&1)*2; padded <= len(b) {
		tail = b[padded:]
	}
	switch {
	case u.Flags&UnwindFlagChainInfo != 0:
		if len(tail) < 12 {
			return nil, rvaErr("UNWIND_INFO", rva, "chained entry past the end")
		}
		u.Chained = &RuntimeFunction{le.Uint32(tail), le.Uint32(tail[4:]), le.Uint32(tail[8:])}
	case u.Flags&(UnwindFlagEHandler|UnwindFlagUHandler) != 0:
		if len(tail) < 4 {
			return nil, rvaErr("UNWIND_INFO", rva, "handler past the end")
		}
		u.Handler = le.Uint32(tail)
	}
	return u, nil
}

// slots is how many code slots each operation takes (version 1; version
// 2's EPILOG takes one).
var slots = [...]int{1, 0, 1, 1, 2, 3, 2, 3, 2, 3, 1}

func (u *UnwindInfo) decodeCodes(b []byte, rva uint32) error {
	slot := func(i int) uint32 { return uint32(le.Uint16(b[i*2:])) }
	n := len(b) / 2
	epilogHeader := false
	for i := 0; i < n; {
		c := UnwindCode{CodeOffset: b[i*2], Op: UnwindOp(b[i*2+1] & 15), Info: b[i*2+1] >> 4}
		at := rva + 4 + uint32(i)*2
		if c.Op > maxUnwindOpKnown {
			return rvaErr("UNWIND_INFO", at, "unknown unwind operation %d", c.Op)
		}
		k := slots[c.Op]
		switch {
		case c.Op == OpAllocLarge && c.Info == 0:
			k = 2
		case c.Op == OpAllocLarge && c.Info == 1:
			k = 3
		case c.Op == OpAllocLarge:
			return rvaErr("UNWIND_INFO", at, "UWOP_ALLOC_LARGE with operation info %d", c.Info)
		case c.Op == OpEpilog && u.Version == 2:
			k = 1
		}
		if i+k > n {
			return rvaErr("UNWIND_INFO", at, "%v needs %d slots, %d left", c.Op, k, n-i)
		}
		switch c.Op {
		case OpAllocLarge:
			if k == 2 {
				c.Value = slot(i+1) * 8
			} else {
				c.Value = slot(i+1) | slot(i+2)<<16
			}
		case OpAllocSmall:
			c.Value = uint32(c.Info)*8 + 8
		case OpSaveNonvol:
			c.Value = slot(i+1) * 8
		case OpSaveXMM128:
			c.Value = slot(i+1) * 16
		case OpSaveNonvolFar, OpSaveXMM128Far:
			c.Value = slot(i+1) | slot(i+2)<<16
		case OpEpilog, OpSpareCode:
			if u.Version == 2 && c.Op == OpEpilog {
				u.addEpilog(c, !epilogHeader)
				epilogHeader = true
				i += k
				continue
			}
			c.Value = slot(i + 1) // version 1's SAVE_XMM(_FAR): never used by compilers
			if c.Op == OpSpareCode {
				c.Value |= slot(i+2) << 16
			}
		case OpPushMachFrame:
			if c.Info > 1 {
				return rvaErr("UNWIND_INFO", at, "UWOP_PUSH_MACHFRAME with operation info %d", c.Info)
			}
		}
		u.Codes = append(u.Codes, c)
		i += k
	}
	return nil
}

// addEpilog records a version 2 EPILOG code: the first gives the epilogs'
// size and whether one ends the function; each later one an epilog's start
// as a distance from the function's end (0: padding).
func (u *UnwindInfo) addEpilog(c UnwindCode, first bool) {
	if first {
		u.EpilogSize = c.CodeOffset
		if c.Info&1 != 0 {
			u.Epilogs = append(u.Epilogs, Epilog{FromEnd: uint32(c.CodeOffset)})
		}
		return
	}
	if off := uint32(c.CodeOffset) | uint32(c.Info)<<8; off != 0 {
		u.Epilogs = append(u.Epilogs, Epilog{FromEnd: off})
	}
}
