package coredump

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// fileAsMemory maps an ELF file's bytes at base, as the loader maps its
// first PT_LOAD (file offset 0) there.
type fileAsMemory struct {
	base uint64
	data []byte
}

func (m fileAsMemory) ReadMemory(addr uint64, p []byte) error {
	if addr < m.base || addr-m.base > uint64(len(m.data)) || uint64(len(p)) > uint64(len(m.data))-(addr-m.base) {
		return fmt.Errorf("no memory at %#x", addr)
	}
	copy(p, m.data[addr-m.base:])
	return nil
}

// TestImageLoads reads the PT_LOAD headers of the stripped arm and arm64
// crash programs twice: from the file with debug/elf (ImageFile) and from
// the program's bytes as the loader maps them (ImageInMemory, this
// package's own header parser). Both must agree, and the executable
// segments must be those readelf -l shows for the programs: one R E
// segment holding the entry point.
func TestImageLoads(t *testing.T) {
	for _, arch := range []string{"arm", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			data := corpus.ReadZstd(t, filepath.Join(coresDir, arch+"-crashdemo.zst"))
			path := filepath.Join(t.TempDir(), "crashdemo")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			file, err := ImageFile(path)
			if err != nil {
				t.Fatal(err)
			}
			mem, err := ImageInMemory(fileAsMemory{file.LoadStart, data}, file.LoadStart, arch == "arm64")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(file.Loads, mem.Loads) {
				t.Errorf("Loads from the file %+v, from memory %+v", file.Loads, mem.Loads)
			}
			var exec []Load
			for _, l := range file.Loads {
				if l.Flags&elf.PF_X != 0 {
					exec = append(exec, l)
				}
			}
			if len(exec) != 1 || exec[0].Flags != elf.PF_R|elf.PF_X || file.Entry < exec[0].Vaddr || file.Entry >= exec[0].Vaddr+exec[0].Filesz {
				t.Errorf("executable segments %+v, entry %#x; want one R E segment holding the entry", exec, file.Entry)
			}
		})
	}
}
