package minidump

import (
	"errors"
	"fmt"
)

// MemoryInfo is MINIDUMP_MEMORY_INFO: one virtual memory region's state.
type MemoryInfo struct {
	BaseAddress       uint64
	AllocationBase    uint64
	AllocationProtect uint32
	RegionSize        uint64
	State             uint32
	Protect           uint32
	Type              uint32
}

// Memory protection bits (PAGE_*) used by MemoryInfo.Protect.
const (
	PageNoAccess         = 0x01
	PageReadOnly         = 0x02
	PageReadWrite        = 0x04
	PageWriteCopy        = 0x08
	PageExecute          = 0x10
	PageExecuteRead      = 0x20
	PageExecuteReadWrite = 0x40
	PageExecuteWriteCopy = 0x80
	PageGuard            = 0x100
)

// MemoryInfo parses MINIDUMP_MEMORY_INFO_LIST.
func (f *File) MemoryInfo() ([]MemoryInfo, error) {
	b, s, err := f.stream(StreamMemoryInfoList)
	if err != nil {
		return nil, err
	}
	if len(b) < 16 {
		return nil, &FormatError{s.Off, s.Name, "header truncated"}
	}
	hdr, ent, n := uint64(le.Uint32(b)), uint64(le.Uint32(b[4:])), le.Uint64(b[8:])
	if hdr < 16 || ent < 48 || hdr > uint64(len(b)) {
		return nil, &FormatError{s.Off, s.Name, fmt.Sprintf("bad header size %d / entry size %d", hdr, ent)}
	}
	var err2 error
	if fit := (uint64(len(b)) - hdr) / ent; n > fit {
		err2 = &FormatError{s.Off, s.Name, fmt.Sprintf("count %d exceeds stream (%d fit)", n, fit)}
		n = fit
	}
	out := make([]MemoryInfo, n)
	for i := range out {
		e := b[hdr+uint64(i)*ent:]
		out[i] = MemoryInfo{
			BaseAddress: le.Uint64(e), AllocationBase: le.Uint64(e[8:]), AllocationProtect: le.Uint32(e[16:]),
			RegionSize: le.Uint64(e[24:]), State: le.Uint32(e[32:]), Protect: le.Uint32(e[36:]), Type: le.Uint32(e[40:]),
		}
	}
	return out, err2
}

// Handle is MINIDUMP_HANDLE_DESCRIPTOR(_2).
type Handle struct {
	Handle        uint64
	TypeName      string
	ObjectName    string
	Attributes    uint32
	GrantedAccess uint32
	HandleCount   uint32
	PointerCount  uint32
}

// HandleData parses MINIDUMP_HANDLE_DATA_STREAM.
func (f *File) HandleData() ([]Handle, error) {
	b, s, err := f.stream(StreamHandleData)
	if err != nil {
		return nil, err
	}
	if len(b) < 16 {
		return nil, &FormatError{s.Off, s.Name, "header truncated"}
	}
	hdr, ent, n := uint64(le.Uint32(b)), uint64(le.Uint32(b[4:])), uint64(le.Uint32(b[8:]))
	if hdr < 16 || ent < 32 || hdr > uint64(len(b)) {
		return nil, &FormatError{s.Off, s.Name, fmt.Sprintf("bad header size %d / descriptor size %d", hdr, ent)}
	}
	var errs []error
	if fit := (uint64(len(b)) - hdr) / ent; n > fit {
		errs = append(errs, &FormatError{s.Off, s.Name, fmt.Sprintf("count %d exceeds stream (%d fit)", n, fit)})
		n = fit
	}
	out := make([]Handle, n)
	for i := range out {
		e := b[hdr+uint64(i)*ent:]
		h := Handle{Handle: le.Uint64(e), Attributes: le.Uint32(e[16:]), GrantedAccess: le.Uint32(e[20:]),
			HandleCount: le.Uint32(e[24:]), PointerCount: le.Uint32(e[28:])}
		var err error
		if rva := le.Uint32(e[8:]); rva != 0 {
			if h.TypeName, err = f.readString(rva, s.Name); err != nil {
				errs = append(errs, err)
			}
		}
		if rva := le.Uint32(e[12:]); rva != 0 {
			if h.ObjectName, err = f.readString(rva, s.Name); err != nil {
				errs = append(errs, err)
			}
		}
		out[i] = h
	}
	return out, errors.Join(errs...)
}
