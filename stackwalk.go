package stackwalk

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/coreconv"
	"github.com/minidump-stackwalk/minidump-stackwalk/microdump"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// Kind is the kind of an input file.
type Kind uint8

// Input kinds.
const (
	KindMinidump  Kind = iota // a minidump (Breakpad, Crashpad, Windows)
	KindMicrodump             // an Android microdump (logcat text)
	KindCore                  // a Linux ELF core file, converted to a minidump
)

func (k Kind) String() string {
	switch k {
	case KindMicrodump:
		return "microdump"
	case KindCore:
		return "ELF core"
	}
	return "minidump"
}

// Dump is an opened input of any kind, ready to be processed.
type Dump struct {
	Kind Kind
	// Minidump is the minidump read, or for a core the minidump it was
	// converted to (as Breakpad's core2md converts it); nil for a microdump.
	Minidump *minidump.File
	// Microdump is the parsed microdump; nil for the other kinds. Its
	// Warnings list the records that were ignored.
	Microdump *microdump.Dump
}

// Options tune Open.
type Options struct {
	// Sysroot is, for an ELF core, the directory under which the module
	// files the core names are read (for the code around return addresses
	// that the walk checks call sites with); "/" reads them where they are.
	// "" reads none: a core is untrusted input, and its paths must not
	// decide which local files are opened.
	Sysroot string
}

// Open reads the file at path as whatever kind of dump it is, with the
// zero Options: see OpenWith.
func Open(path string) (*Dump, error) { return OpenWith(path, Options{}) }

// OpenWith reads the file at path as whatever kind of dump it is: a
// microdump (text holding a microdump), an ELF core file (ELF header of
// type ET_CORE, converted to a minidump as cmd/core2md converts it), else a
// minidump. The error is the reader's, naming the offset or line where the
// file is malformed. Close the Dump when done.
func OpenWith(path string, opts Options) (*Dump, error) {
	head, err := readHead(path)
	if err != nil {
		// Let the minidump reader say what is wrong with the file.
		return openMinidump(path)
	}
	switch {
	case isELFCore(head):
		return openCore(path, opts.Sysroot)
	case bytes.HasPrefix(head, []byte("MDMP")) || bytes.HasPrefix(head, []byte(elf.ELFMAG)):
		return openMinidump(path)
	}
	if data, ok := readMicrodump(path); ok {
		d, err := microdump.Parse(data)
		if err != nil {
			return nil, err
		}
		return &Dump{Kind: KindMicrodump, Microdump: d}, nil
	}
	return openMinidump(path)
}

// NewMinidump makes a Dump of an opened minidump.
func NewMinidump(f *minidump.File) *Dump { return &Dump{Kind: KindMinidump, Minidump: f} }

// Process walks every thread of the dump and symbolizes it with syms (nil:
// no symbols). See processor.Process for opts and the errors; for a
// microdump opts is ignored and processor.MicrodumpOptions used, which
// reproduce Breakpad's microdump_stackwalk. The state is never nil: on an
// error it holds what could be read, and its Status says what went wrong.
func (d *Dump) Process(syms symfile.Supplier, opts processor.Options) (*processor.ProcessState, error) {
	if d.Microdump != nil {
		return processor.ProcessMicrodump(d.Microdump, syms, processor.MicrodumpOptions())
	}
	return processor.Process(d.Minidump, syms, opts)
}

// Close releases the minidump's file or memory map.
func (d *Dump) Close() error {
	if d.Minidump != nil {
		return d.Minidump.Close()
	}
	return nil
}

func openMinidump(path string) (*Dump, error) {
	f, err := minidump.Open(path)
	if err != nil {
		return nil, err
	}
	return NewMinidump(f), nil
}

// openCore converts the core at path as cmd/core2md does with its
// defaults, except that module files are read only under sysroot.
func openCore(path, sysroot string) (*Dump, error) {
	core, err := coredump.Open(path)
	if err != nil {
		return nil, fmt.Errorf("core file: %w", err)
	}
	defer core.Close()
	opt := coreconv.DefaultOptions()
	opt.Sysroot, opt.NoDisk = sysroot, sysroot == ""
	data, err := coreconv.Convert(core, opt)
	if err != nil {
		return nil, fmt.Errorf("converting the core: %w", err)
	}
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("converted dump: %w", err)
	}
	return &Dump{Kind: KindCore, Minidump: f}, nil
}

// headSize is what Open reads to tell the kinds apart: an ELF header's
// e_type ends at byte 18.
const headSize = 18

func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, headSize)
	n, err := io.ReadFull(f, head)
	if n == 0 && err != nil {
		return nil, err
	}
	return head[:n], nil
}

// isELFCore reports whether head starts an ELF core file (ELF magic and
// e_type ET_CORE, in the file's byte order).
func isELFCore(head []byte) bool {
	if len(head) < headSize || string(head[:4]) != elf.ELFMAG {
		return false
	}
	var order binary.ByteOrder = binary.LittleEndian
	if elf.Data(head[elf.EI_DATA]) == elf.ELFDATA2MSB {
		order = binary.BigEndian
	}
	return elf.Type(order.Uint16(head[16:])) == elf.ET_CORE
}

// readMicrodump returns the file's content when it is a microdump.
func readMicrodump(path string) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, microdump.MaxSize+1))
	if err != nil || len(data) > microdump.MaxSize || !microdump.IsMicrodump(data) {
		return nil, false
	}
	return data, true
}
