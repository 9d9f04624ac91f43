package dumpsyms

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
)

// Module is the identity of an ELF file as a MODULE record gives it.
type Module struct {
	OS, Arch string
	ID       string // Breakpad's debug id: the build id as a GUID, plus "0"
	CodeID   string // the build id in hex
	Name     string // DT_SONAME, else the file's base name
}

// archName is Breakpad's name for machine m, as its MODULE records give it.
func archName(m elf.Machine) (string, bool) {
	switch m {
	case elf.EM_386:
		return "x86", true
	case elf.EM_ARM:
		return "arm", true
	case elf.EM_AARCH64:
		return "arm64", true
	case elf.EM_MIPS:
		return "mips", true
	case elf.EM_PPC64:
		return "ppc64", true
	case elf.EM_PPC:
		return "ppc", true
	case elf.EM_S390:
		return "s390", true
	case elf.EM_SPARC:
		return "sparc", true
	case elf.EM_SPARCV9:
		return "sparcv9", true
	case elf.EM_X86_64:
		return "x86_64", true
	case elf.EM_RISCV:
		return "riscv", true
	}
	return "", false
}

// ModuleOf computes the MODULE record's fields of f, read from path.
func ModuleOf(f *elf.File, path string) (*Module, error) {
	arch, ok := archName(f.Machine)
	if !ok {
		return nil, fmt.Errorf("%s: unrecognized ELF machine architecture: %d", path, f.Machine)
	}
	id, err := Identifier(f)
	if err != nil {
		return nil, fmt.Errorf("%s: unable to generate file identifier: %w", path, err)
	}
	m := &Module{OS: "Linux", Arch: arch, ID: GUIDString(id) + "0", CodeID: strings.ToUpper(fmt.Sprintf("%x", id)),
		Name: filepath.Base(path)}
	if libs, err := f.DynString(elf.DT_SONAME); err == nil && len(libs) > 0 && libs[0] != "" {
		m.Name = libs[0]
	}
	return m, nil
}

// Identifier returns the GNU build id of f, from its .note.gnu.build-id
// section or else a PT_NOTE segment; without one, the XOR of the 16-byte
// blocks of the first 4096 bytes of .text, as Breakpad's FileID.
func Identifier(f *elf.File) ([]byte, error) {
	if s := f.Section(".note.gnu.build-id"); s != nil && s.Type == elf.SHT_NOTE && s.Size < 1<<16 {
		if data, err := s.Data(); err == nil {
			if id := buildIDNote(data, f.ByteOrder); id != nil {
				return id, nil
			}
		}
	}
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE || p.Filesz > 1<<20 {
			continue
		}
		data := make([]byte, p.Filesz)
		if _, err := p.ReadAt(data, 0); err != nil {
			continue
		}
		if id := buildIDNote(data, f.ByteOrder); id != nil {
			return id, nil
		}
	}
	text := f.Section(".text")
	if text == nil || text.Type != elf.SHT_PROGBITS {
		return nil, fmt.Errorf("no build id and no .text section")
	}
	n := text.Size
	if n > 4096 {
		n = 4096
	}
	page := make([]byte, (n+15)&^15)
	if _, err := text.ReadAt(page[:n], 0); err != nil {
		return nil, err
	}
	id := make([]byte, 16)
	for i := 0; i < len(page); i += 16 {
		for j := range id {
			id[j] ^= page[i+j]
		}
	}
	return id, nil
}

// buildIDNote finds the NT_GNU_BUILD_ID note in a note section.
func buildIDNote(data []byte, order binary.ByteOrder) []byte {
	for len(data) >= 12 {
		namesz, descsz, typ := order.Uint32(data), order.Uint32(data[4:]), order.Uint32(data[8:])
		nameEnd := 12 + (uint64(namesz)+3)&^3
		descEnd := nameEnd + (uint64(descsz)+3)&^3
		if descEnd > uint64(len(data)) {
			return nil
		}
		if typ == 3 && namesz == 4 && string(data[12:16]) == "GNU\x00" && descsz > 0 {
			return data[nameEnd : nameEnd+uint64(descsz)]
		}
		data = data[descEnd:]
	}
	return nil
}

// GUIDString formats the first 16 bytes of an identifier (zero-padded) as
// Breakpad's debug id: three little-endian fields, then eight bytes.
func GUIDString(id []byte) string {
	var g [16]byte
	copy(g[:], id)
	return fmt.Sprintf("%08X%04X%04X%X", binary.LittleEndian.Uint32(g[:]),
		binary.LittleEndian.Uint16(g[4:]), binary.LittleEndian.Uint16(g[6:]), g[8:])
}

// loadInfo is what the records' addresses are relative to: the first
// PT_LOAD segment's address, and the PT_LOAD ranges outside which no record
// is kept.
type loadInfo struct {
	base   uint64
	ranges [][2]uint64
}

func loadInfoOf(f *elf.File) loadInfo {
	var li loadInfo
	first := true
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		if first {
			li.base, first = p.Vaddr, false
		}
		li.ranges = append(li.ranges, [2]uint64{p.Vaddr, p.Vaddr + p.Memsz})
	}
	return li
}

func (li loadInfo) contains(addr uint64) bool {
	if len(li.ranges) == 0 {
		return true
	}
	for _, r := range li.ranges {
		if addr >= r[0] && addr < r[1] {
			return true
		}
	}
	return false
}
