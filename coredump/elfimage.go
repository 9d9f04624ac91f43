package coredump

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/regfile"
)

// MemoryReader reads process memory; *File implements it.
type MemoryReader interface {
	ReadMemory(addr uint64, p []byte) error
}

const maxBuildIDNote = 64 << 10

// Image describes an ELF object: its build id and the extent of its
// PT_LOAD segments at their link-time addresses.
type Image struct {
	Type    elf.Type
	Entry   uint64
	BuildID []byte // NT_GNU_BUILD_ID; nil when absent
	// TextHash is Breakpad's identifier for an ELF file without a build id:
	// the first 4 KiB of .text XORed in 16-byte blocks. Only ImageFile sets it.
	TextHash  []byte
	LoadStart uint64 // lowest PT_LOAD vaddr, page aligned down
	LoadEnd   uint64 // highest PT_LOAD vaddr+memsz, page aligned up
	// Loads are the PT_LOAD program headers, in file order (at most
	// maxLoads of them).
	Loads []Load
}

// Load is a PT_LOAD program header: memory [Vaddr, Vaddr+Memsz) at link
// time, of which the first Filesz bytes are file bytes from offset Off.
type Load struct {
	Vaddr, Memsz, Off, Filesz uint64
	Flags                     elf.ProgFlag
}

// maxLoads bounds the PT_LOAD headers kept per image (real objects have a
// handful).
const maxLoads = 256

const pageMask = 0xfff

// ImageInMemory reads the ELF header and program headers mapped at base
// and, when the PT_NOTE segments are in memory too, the build id.
func ImageInMemory(m MemoryReader, base uint64, is64 bool) (*Image, error) {
	hsize, phsize := 52, 32
	if is64 {
		hsize, phsize = 64, 56
	}
	h := make([]byte, hsize)
	if err := m.ReadMemory(base, h); err != nil {
		return nil, err
	}
	if !bytes.Equal(h[:4], []byte("\x7fELF")) || (h[4] == 2) != is64 || h[5] != 1 {
		return nil, fmt.Errorf("no little-endian ELF header of the core's class at %#x", base)
	}
	d := fields{h, is64}
	img := &Image{Type: elf.Type(d.u16(16))}
	var phoff uint64
	var phnum int
	if is64 {
		img.Entry, phoff, phnum = d.u64(24), d.u64(32), int(d.u16(56))
	} else {
		img.Entry, phoff, phnum = uint64(d.u32(24)), uint64(d.u32(28)), int(d.u16(44))
	}
	if phnum == 0 || phnum > 4096 || phoff > 1<<20 {
		return nil, fmt.Errorf("ELF at %#x: implausible program headers (%d at %#x)", base, phnum, phoff)
	}
	ph := make([]byte, phnum*phsize)
	if err := m.ReadMemory(base+phoff, ph); err != nil {
		return nil, fmt.Errorf("ELF at %#x: program headers: %w", base, err)
	}
	var notes [][2]uint64 // vaddr, size
	first := true
	for i := 0; i < phnum; i++ {
		p := fields{ph[i*phsize : (i+1)*phsize], is64}
		var typ, flags uint32
		var off, vaddr, filesz, memsz uint64
		if is64 {
			typ, flags, off, vaddr, filesz, memsz = p.u32(0), p.u32(4), p.u64(8), p.u64(16), p.u64(32), p.u64(40)
		} else {
			typ, off, vaddr, filesz, memsz, flags = p.u32(0), uint64(p.u32(4)), uint64(p.u32(8)), uint64(p.u32(16)), uint64(p.u32(20)), p.u32(24)
		}
		switch typ {
		case uint32(elf.PT_LOAD):
			if len(img.Loads) < maxLoads {
				img.Loads = append(img.Loads, Load{vaddr, memsz, off, filesz, elf.ProgFlag(flags)})
			}
			start, end := vaddr&^pageMask, (vaddr+memsz+pageMask)&^pageMask
			if first || start < img.LoadStart {
				img.LoadStart = start
			}
			if first || end > img.LoadEnd {
				img.LoadEnd = end
			}
			first = false
		case uint32(elf.PT_NOTE):
			notes = append(notes, [2]uint64{vaddr, filesz})
		}
	}
	if first {
		return nil, fmt.Errorf("ELF at %#x has no PT_LOAD", base)
	}
	bias := base - img.LoadStart
	for _, n := range notes {
		if n[1] > maxBuildIDNote {
			continue
		}
		buf := make([]byte, n[1])
		if err := m.ReadMemory(n[0]+bias, buf); err != nil {
			continue
		}
		if id := buildIDFromNotes(buf); id != nil {
			img.BuildID = id
			break
		}
	}
	return img, nil
}

// buildIDFromNotes finds an NT_GNU_BUILD_ID note owned by "GNU".
func buildIDFromNotes(buf []byte) []byte {
	for pos := uint64(0); pos+12 <= uint64(len(buf)); {
		namesz := uint64(binary.LittleEndian.Uint32(buf[pos:]))
		descsz := uint64(binary.LittleEndian.Uint32(buf[pos+4:]))
		typ := binary.LittleEndian.Uint32(buf[pos+8:])
		descOff := pos + 12 + align4(namesz)
		if descOff > uint64(len(buf)) || descsz > uint64(len(buf))-descOff {
			return nil
		}
		if typ == 3 && namesz == 4 && string(buf[pos+12:pos+15]) == "GNU" && descsz > 0 {
			return append([]byte(nil), buf[descOff:descOff+descsz]...)
		}
		pos = descOff + align4(descsz)
	}
	return nil
}

// ImageFile reads the same facts from an ELF file on disk. Only regular
// files are opened.
func ImageFile(path string) (*Image, error) {
	ef, closeFile, err := regfile.ELF(path) // a FIFO must not block
	if err != nil {
		return nil, err
	}
	defer closeFile()
	img := &Image{Type: ef.Type, Entry: ef.Entry}
	first := true
	for _, p := range ef.Progs {
		switch p.Type {
		case elf.PT_LOAD:
			if len(img.Loads) < maxLoads {
				img.Loads = append(img.Loads, Load{p.Vaddr, p.Memsz, p.Off, p.Filesz, p.Flags})
			}
			start, end := p.Vaddr&^pageMask, (p.Vaddr+p.Memsz+pageMask)&^pageMask
			if first || start < img.LoadStart {
				img.LoadStart = start
			}
			if first || end > img.LoadEnd {
				img.LoadEnd = end
			}
			first = false
		case elf.PT_NOTE:
			if img.BuildID == nil && p.Filesz <= maxBuildIDNote {
				buf := make([]byte, p.Filesz)
				if _, err := p.ReadAt(buf, 0); err == nil {
					img.BuildID = buildIDFromNotes(buf)
				}
			}
		}
	}
	if first {
		return nil, fmt.Errorf("%s has no PT_LOAD", path)
	}
	if img.BuildID == nil {
		if s := ef.Section(".note.gnu.build-id"); s != nil && s.Size <= maxBuildIDNote {
			if buf, err := s.Data(); err == nil {
				img.BuildID = buildIDFromNotes(buf)
			}
		}
	}
	if img.BuildID == nil {
		img.TextHash = textHash(path, ef)
	}
	return img, nil
}

// textHash computes Breakpad's fallback identifier (HashElfTextSection in
// common/linux/file_id.cc). Like Breakpad it reads whole 16-byte blocks, so
// up to 15 bytes after .text take part; bytes past the end of the file count
// as zero.
func textHash(path string, ef *elf.File) []byte {
	s := ef.Section(".text")
	if s == nil || s.Type != elf.SHT_PROGBITS || s.Size == 0 {
		return nil
	}
	n := min(s.Size, 4096)
	n = (n + 15) &^ 15
	f, _, err := regfile.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, int64(s.Offset)); err != nil && err != io.EOF {
		return nil
	}
	id := make([]byte, 16)
	for i := 0; i < len(buf); i += 16 {
		for j := 0; j < 16; j++ {
			id[j] ^= buf[i+j]
		}
	}
	return id
}
