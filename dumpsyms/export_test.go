package dumpsyms

import (
	"debug/elf"
	"io"
)

// Write writes the symbol file of the ELF file f, read from path, to w.
func Write(w io.Writer, f *elf.File, path string, opts Options) error {
	return WriteWithDebug(w, f, nil, path, opts)
}
