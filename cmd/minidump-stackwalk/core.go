package main

// A Linux ELF core file given as the input is
// converted to a minidump (internal/coreconv, the conversion of cmd/core2md)
// and walked like one. Unlike core2md, which runs where the crash happened,
// the walker reads no module file the core names unless --sysroot gives a
// root to read them under: the core is untrusted input, and its paths must
// not decide which local files are opened. core2md's --module and
// --os-version are left to core2md (a qemu-user core, which holds no program
// text, needs --module to name the program).

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/coreconv"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// isELFCore reports whether the file at path starts like an ELF core file
// (ELF magic and e_type ET_CORE, in the file's byte order).
func isELFCore(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var h [18]byte
	if _, err := io.ReadFull(f, h[:]); err != nil || string(h[:4]) != elf.ELFMAG {
		return false
	}
	var order binary.ByteOrder = binary.LittleEndian
	if elf.Data(h[elf.EI_DATA]) == elf.ELFDATA2MSB {
		order = binary.BigEndian
	}
	return elf.Type(order.Uint16(h[16:])) == elf.ET_CORE
}

// processCore walks the ELF core file named in o: it converts it to a
// minidump in memory and processes that. It reports
// handled=false, having done nothing, when the file is not an ELF core.
func processCore(o *options, group flagGroup, stdout, stderr io.Writer) (status int, handled bool) {
	if !isELFCore(o.dumpPath) {
		return 0, false
	}
	data, err := convertCoreFile(o.dumpPath, coreOptions(o.sysroot))
	if err != nil {
		fmt.Fprintf(stderr, "minidump-stackwalk: %s: %v\n", o.dumpPath, err)
		writeOpenFailure(group, stdout, o.dumpPath, err) // --json prints a status document
		return exitDump, true
	}
	dump, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		fmt.Fprintf(stderr, "minidump-stackwalk: %s: converted dump: %v\n", o.dumpPath, err)
		writeOpenFailure(group, stdout, o.dumpPath, err)
		return exitDump, true
	}
	return processDump(o, group, dump, bytes.NewReader(data), stdout, stderr), true
}

// coreOptions are core2md's conversion defaults, except that module files
// are read from disk only under sysroot, and not at all when it is "".
func coreOptions(sysroot string) coreconv.Options {
	opt := coreconv.DefaultOptions()
	opt.Sysroot, opt.NoDisk = sysroot, sysroot == ""
	return opt
}

// convertCoreFile reads the core at path and returns the minidump bytes.
func convertCoreFile(path string, opt coreconv.Options) ([]byte, error) {
	core, err := coredump.Open(path)
	if err != nil {
		return nil, fmt.Errorf("core file: %w", err)
	}
	defer core.Close()
	data, err := coreconv.Convert(core, opt)
	if err != nil {
		return nil, fmt.Errorf("converting the core: %w", err)
	}
	return data, nil
}
