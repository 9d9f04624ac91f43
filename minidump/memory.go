package minidump

import (
	"errors"
	"fmt"
	"slices"
)

// MemoryRegion is a range of the crashed process's memory captured in the dump.
type MemoryRegion struct {
	Base uint64
	Size uint64
	Off  int64 // file offset of the bytes
	// Memory64 says the region comes from the Memory64ListStream (full-memory
	// dumps), which Breakpad's processor does not read.
	Memory64 bool

	f      *File
	entry  int64  // file offset of the region's descriptor
	stream string // the stream holding the descriptor
}

// End is the address one past the region (saturating at 2^64-1).
func (r MemoryRegion) End() uint64 {
	if r.Base+r.Size < r.Base {
		return ^uint64(0)
	}
	return r.Base + r.Size
}

// Contains reports whether addr is inside the region.
func (r MemoryRegion) Contains(addr uint64) bool { return addr >= r.Base && addr-r.Base < r.Size }

// Bytes returns the region's contents, read on demand. For a File from Open it
// is a slice of the memory map: read-only, and valid only until Close.
func (r MemoryRegion) Bytes() ([]byte, error) {
	if r.f == nil {
		return nil, errors.New("minidump: memory region has no file")
	}
	return r.f.bytesAt(r.Off, int64(r.Size), "memory")
}

// memoryError is ReadMemory's error for memory the dump does not hold, in
// one object formatted only when printed: the walkers probe many
// addresses whose code is not in the dump.
type memoryError struct {
	addr      uint64
	n         int    // 0: addr lies in no region
	base, end uint64 // the region the read of n bytes runs past
}

func (e *memoryError) Error() string {
	if e.n == 0 {
		return fmt.Sprintf("minidump: address %#x not in captured memory", e.addr)
	}
	return fmt.Sprintf("minidump: read of %d bytes at %#x runs past region %#x-%#x", e.n, e.addr, e.base, e.end)
}

// MemoryList is the captured memory of MemoryListStream and Memory64ListStream,
// sorted by address. Its methods accept a nil receiver (no memory).
type MemoryList struct {
	regions []MemoryRegion
}

// Memory merges the memory list and the 64-bit memory list. Regions whose
// bytes lie outside the file are dropped and reported; overlapping regions are
// dropped and reported, keeping the lowest. The list is read once and
// shared by every call.
func (f *File) Memory() (*MemoryList, error) {
	f.memOnce.Do(func() { f.mem, f.memErr = f.readMemory() })
	return f.mem, f.memErr
}

func (f *File) readMemory() (*MemoryList, error) {
	var errs []error
	bad := cappedErrors{what: "bad memory descriptors"}
	var regions []MemoryRegion
	found := false
	if b, s, err := f.stream(StreamMemoryList); err == nil {
		found = true
		const entry = 16
		n, start, cerr := listCount(b, s, entry)
		if cerr != nil {
			errs = append(errs, cerr)
		}
		regions = make([]MemoryRegion, 0, n)
		for i := 0; i < n; i++ {
			e := b[start+i*entry:]
			r := MemoryRegion{Base: le.Uint64(e), Size: uint64(le.Uint32(e[8:])), Off: int64(le.Uint32(e[12:])), f: f,
				entry: s.Off + int64(start+i*entry), stream: s.Name}
			if err := f.checkRegion(r, s, start+i*entry); err != nil {
				bad.add(err)
				continue
			}
			regions = append(regions, r)
		}
	} else if !errors.Is(err, ErrNoStream) {
		errs = append(errs, err)
	}
	if b, s, err := f.stream(StreamMemory64List); err == nil {
		found = true
		if len(b) < 16 {
			errs = append(errs, &FormatError{s.Off, s.Name, "header truncated"})
		} else {
			n := le.Uint64(b)
			off := le.Uint64(b[8:]) // BaseRva: the regions' bytes follow each other from here
			const entry = 16
			if fit := uint64(len(b)-16) / entry; n > fit {
				errs = append(errs, &FormatError{s.Off, s.Name, fmt.Sprintf("count %d exceeds stream (%d fit)", n, fit)})
				n = fit
			}
			regions = slices.Grow(regions, int(n))
			for i := uint64(0); i < n; i++ {
				e := b[16+i*entry:]
				r := MemoryRegion{Base: le.Uint64(e), Size: le.Uint64(e[8:]), Off: int64(off), f: f, Memory64: true,
					entry: s.Off + 16 + int64(i*entry), stream: s.Name}
				if off > uint64(f.size) || r.Size > uint64(f.size)-off {
					errs = append(errs, &FormatError{s.Off + 16 + int64(i*entry), s.Name,
						fmt.Sprintf("region %#x+%#x at file offset %#x beyond file end %#x", r.Base, r.Size, off, f.size)})
					break // every later region's offset depends on this one
				}
				off += r.Size
				if r.Size == 0 {
					continue
				}
				regions = append(regions, r)
			}
		}
	} else if !errors.Is(err, ErrNoStream) {
		errs = append(errs, err)
	}
	if !found && len(errs) == 0 {
		return nil, fmt.Errorf("minidump: memory: %w", ErrNoStream)
	}
	// Breakpad's range map refuses overlapping regions; keep the lowest and
	// report the others: the first few each, then how many more.
	slices.SortStableFunc(regions, func(a, b MemoryRegion) int {
		switch {
		case a.Base < b.Base:
			return -1
		case a.Base > b.Base:
			return 1
		}
		return 0
	})
	kept := regions[:0]
	overlaps := cappedErrors{what: "overlapping memory regions ignored"}
	for _, r := range regions {
		if len(kept) > 0 && kept[len(kept)-1].End() > r.Base {
			k := kept[len(kept)-1]
			overlaps.add(&FormatError{r.entry, r.stream,
				fmt.Sprintf("region %#x+%#x overlaps region %#x+%#x (descriptor at %#x); ignored", r.Base, r.Size, k.Base, k.Size, k.entry)})
			continue
		}
		kept = append(kept, r)
	}
	errs = append(errs, bad.list()...)
	errs = append(errs, overlaps.list()...)
	regions = kept
	return &MemoryList{regions: regions}, errors.Join(errs...)
}

// maxRepeated is how many errors of one kind a list reports one by one;
// the rest are counted in one more error (100k bad descriptors gave 100k
// lines of warnings).
const maxRepeated = 5

// cappedErrors collects errors of one kind: the first maxRepeated, then a
// count of the others, reported at the offset of the first of them.
type cappedErrors struct {
	what  string
	errs  []error
	more  int
	first error
}

func (c *cappedErrors) add(err error) {
	if len(c.errs) < maxRepeated {
		c.errs = append(c.errs, err)
		return
	}
	if c.more == 0 {
		c.first = err
	}
	c.more++
}

func (c *cappedErrors) list() []error {
	if c.more == 0 {
		return c.errs
	}
	summary := fmt.Errorf("%d more %s, the first: %w", c.more, c.what, c.first)
	return append(c.errs, summary)
}

func (f *File) checkRegion(r MemoryRegion, s StreamInfo, entryOff int) error {
	if r.Size == 0 {
		return &FormatError{s.Off + int64(entryOff), s.Name, fmt.Sprintf("empty region at %#x", r.Base)}
	}
	if r.Base+r.Size-1 < r.Base {
		return &FormatError{s.Off + int64(entryOff), s.Name, fmt.Sprintf("region %#x+%#x wraps", r.Base, r.Size)}
	}
	if r.Off > f.size || int64(r.Size) > f.size-r.Off {
		return &FormatError{s.Off + int64(entryOff), s.Name,
			fmt.Sprintf("region %#x+%#x at file offset %#x beyond file end %#x", r.Base, r.Size, r.Off, f.size)}
	}
	return nil
}

// Regions returns the regions sorted by base address.
func (m *MemoryList) Regions() []MemoryRegion {
	if m == nil {
		return nil
	}
	return slices.Clone(m.regions)
}

// Region returns the region containing addr.
func (m *MemoryList) Region(addr uint64) (MemoryRegion, bool) {
	if m == nil {
		return MemoryRegion{}, false
	}
	// Regions do not overlap: the candidate is the last one with Base <= addr.
	i, _ := slices.BinarySearchFunc(m.regions, addr, func(r MemoryRegion, a uint64) int {
		if r.Base <= a {
			return -1
		}
		return 1
	})
	if i > 0 && m.regions[i-1].Contains(addr) {
		return m.regions[i-1], true
	}
	return MemoryRegion{}, false
}

// ReadMemory fills p with the memory at addr. The whole range must lie in one
// region; otherwise, or if the dump is short, it returns an error and p's
// contents are unspecified.
func (m *MemoryList) ReadMemory(addr uint64, p []byte) error {
	if len(p) == 0 {
		return nil
	}
	r, ok := m.Region(addr)
	if !ok {
		return &memoryError{addr: addr}
	}
	rel := addr - r.Base
	if uint64(len(p)) > r.Size-rel {
		return &memoryError{addr: addr, n: len(p), base: r.Base, end: r.End()}
	}
	return r.f.readAt(p, r.Off+int64(rel), "memory")
}
