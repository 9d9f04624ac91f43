package minidump

import (
	"errors"
	"fmt"
)

// MemoryDescriptor is MINIDUMP_MEMORY_DESCRIPTOR: a captured range and where its bytes are in the file.
type MemoryDescriptor struct {
	Start uint64
	Size  uint32
	Off   int64 // file offset (RVA) of the bytes
}

// Thread is MINIDUMP_THREAD with its context decoded.
type Thread struct {
	ID            uint32
	SuspendCount  uint32
	PriorityClass uint32
	Priority      uint32
	TEB           uint64
	Stack         MemoryDescriptor
	ContextOff    int64
	ContextSize   uint32
	Context       *Context // nil when the context is absent or unreadable
	ContextErr    error    // why Context is nil
}

// listCount validates a "count then fixed-size entries" stream header and
// returns the count and the offset of the first entry. Like Breakpad it allows
// the 4 bytes of padding some writers put after a 32-bit count.
func listCount(b []byte, s StreamInfo, entrySize int) (int, int, error) {
	if len(b) < 4 {
		return 0, 0, &FormatError{s.Off, s.Name, fmt.Sprintf("size %d too small for a count", len(b))}
	}
	n := int64(le.Uint32(b))
	need := 4 + n*int64(entrySize)
	switch {
	case need == int64(len(b)):
		return int(n), 4, nil
	case need+4 == int64(len(b)):
		return int(n), 8, nil
	case need <= int64(len(b)):
		// Breakpad rejects the stream; we keep the entries and report it.
		return int(n), 4, &FormatError{s.Off, s.Name, fmt.Sprintf("%d bytes after %d entries", int64(len(b))-need, n)}
	}
	// Return what fits so callers can give a partial result.
	fit := (int64(len(b)) - 4) / int64(entrySize)
	return int(fit), 4, &FormatError{s.Off, s.Name, fmt.Sprintf("count %d needs %d bytes, stream has %d", n, need, len(b))}
}

// sysArch is the SystemInfo architecture, ArchUnknown if unreadable.
func (f *File) sysArch() Arch {
	si, err := f.SystemInfo()
	if err != nil {
		return ArchUnknown
	}
	return si.Arch
}

func (f *File) readContext(size, rva uint32, stream string, arch Arch) (*Context, error) {
	if size == 0 {
		return nil, &FormatError{int64(rva), stream, "context: absent (size 0)"}
	}
	if size > maxContextSize {
		return nil, &FormatError{int64(rva), stream, fmt.Sprintf("context: size %d too large", size)}
	}
	b, err := f.bytesAt(int64(rva), int64(size), stream)
	if err != nil {
		return nil, err
	}
	return ParseContext(b, arch, int64(rva), stream)
}

// Threads parses the thread list. On a truncated list the readable threads
// are returned with the error.
func (f *File) Threads() ([]Thread, error) {
	b, s, err := f.stream(StreamThreadList)
	if err != nil {
		return nil, err
	}
	const entry = 48
	n, start, cerr := listCount(b, s, entry)
	arch := f.sysArch()
	threads := make([]Thread, 0, n)
	for i := 0; i < n; i++ {
		e := b[start+i*entry:]
		t := Thread{
			ID:            le.Uint32(e[0:]),
			SuspendCount:  le.Uint32(e[4:]),
			PriorityClass: le.Uint32(e[8:]),
			Priority:      le.Uint32(e[12:]),
			TEB:           le.Uint64(e[16:]),
			Stack: MemoryDescriptor{
				Start: le.Uint64(e[24:]),
				Size:  le.Uint32(e[32:]),
				Off:   int64(le.Uint32(e[36:])),
			},
			ContextSize: le.Uint32(e[40:]),
			ContextOff:  int64(le.Uint32(e[44:])),
		}
		t.Context, t.ContextErr = f.readContext(t.ContextSize, uint32(t.ContextOff), s.Name, arch)
		threads = append(threads, t)
	}
	return threads, cerr
}

// StackBytes returns the thread's captured stack memory (for a File from
// Open, a read-only slice of the memory map, valid until Close).
func (f *File) StackBytes(t *Thread) ([]byte, error) {
	return f.bytesAt(t.Stack.Off, int64(t.Stack.Size), StreamThreadList.String())
}

// ThreadNames parses MINIDUMP_THREAD_NAME_LIST: thread id to name.
func (f *File) ThreadNames() (map[uint32]string, error) {
	b, s, err := f.stream(StreamThreadNameList)
	if err != nil {
		return nil, err
	}
	const entry = 12 // ThreadId uint32, RvaOfThreadName uint64 (packed)
	n, start, cerr := listCount(b, s, entry)
	names := make(map[uint32]string, n)
	var errs []error
	if cerr != nil {
		errs = append(errs, cerr)
	}
	for i := 0; i < n; i++ {
		e := b[start+i*entry:]
		id := le.Uint32(e)
		rva := le.Uint64(e[4:])
		if rva > uint64(f.size) {
			errs = append(errs, &FormatError{s.Off + int64(start+i*entry), s.Name, fmt.Sprintf("thread name rva %#x beyond file", rva)})
			continue
		}
		name, err := f.readString(uint32(rva), s.Name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		names[id] = name
	}
	return names, errors.Join(errs...)
}

// Exception is MINIDUMP_EXCEPTION_STREAM.
type Exception struct {
	ThreadID      uint32
	Code          uint32
	Flags         uint32
	Record        uint64 // address of a nested EXCEPTION_RECORD
	Address       uint64
	NumParameters uint32   // as written; Parameters holds at most 15
	Parameters    []uint64 // ExceptionInformation[:min(NumParameters, 15)]
	Context       *Context // nil when absent or unreadable
	ContextErr    error
}

// Exception parses the exception stream.
func (f *File) Exception() (*Exception, error) {
	b, s, err := f.stream(StreamException)
	if err != nil {
		return nil, err
	}
	const size = 168
	if len(b) < size {
		return nil, &FormatError{s.Off, s.Name, fmt.Sprintf("size %d, want %d", len(b), size)}
	}
	e := &Exception{
		ThreadID:      le.Uint32(b[0:]),
		Code:          le.Uint32(b[8:]),
		Flags:         le.Uint32(b[12:]),
		Record:        le.Uint64(b[16:]),
		Address:       le.Uint64(b[24:]),
		NumParameters: le.Uint32(b[32:]),
	}
	np := min(e.NumParameters, 15)
	e.Parameters = make([]uint64, np)
	for i := range e.Parameters {
		e.Parameters[i] = le.Uint64(b[40+8*i:])
	}
	ctxSize, ctxRVA := le.Uint32(b[160:]), le.Uint32(b[164:])
	e.Context, e.ContextErr = f.readContext(ctxSize, ctxRVA, s.Name, f.sysArch())
	return e, nil
}

// ThreadRoles are the thread ids Breakpad's processor treats specially.
type ThreadRoles struct {
	DumpThreadID        uint32 // the thread that wrote the dump; Breakpad skips it
	HasDumpThread       bool
	RequestingThreadID  uint32 // the crashed thread, or the one that asked for the dump
	HasRequestingThread bool
	Crashed             bool // an exception stream is present
}

// ThreadRoles applies Breakpad's rule: the BreakpadInfo stream names the dump
// and requesting threads; an exception stream overrides the requesting thread.
func (f *File) ThreadRoles() ThreadRoles {
	var r ThreadRoles
	if bi, err := f.BreakpadInfo(); err == nil {
		r.DumpThreadID, r.HasDumpThread = bi.DumpThreadID, bi.HasDumpThreadID
		r.RequestingThreadID, r.HasRequestingThread = bi.RequestingThreadID, bi.HasRequestingThreadID
	}
	if ex, err := f.Exception(); err == nil {
		r.Crashed = true
		r.RequestingThreadID, r.HasRequestingThread = ex.ThreadID, true
	}
	return r
}

// ProcessedThreads returns the indexes into threads of the threads Breakpad
// walks (all but the dump thread) and the position of the requesting thread
// among them, -1 when none or not found (Breakpad's requesting_thread).
func (r ThreadRoles) ProcessedThreads(threads []Thread) (indexes []int, requesting int) {
	requesting = -1
	for i, t := range threads {
		if r.HasDumpThread && t.ID == r.DumpThreadID {
			continue
		}
		if r.HasRequestingThread && t.ID == r.RequestingThreadID && requesting < 0 {
			requesting = len(indexes)
		}
		indexes = append(indexes, i)
	}
	return indexes, requesting
}
