package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/regfile"

	"github.com/minidump-stackwalk/minidump-stackwalk/dumpsyms"
	"github.com/minidump-stackwalk/minidump-stackwalk/machofile"
)

// isMachO reports whether path is a dSYM bundle or starts with a Mach-O
// (thin or universal) magic number.
func isMachO(path string) bool {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return strings.HasSuffix(strings.TrimSuffix(path, "/"), ".dSYM")
	}
	f, _, err := regfile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return false
	}
	switch binary.BigEndian.Uint32(magic[:]) {
	case 0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe:
		return true
	}
	return false
}

// runMachO writes the symbol file of a Mach-O binary with the dSYM beside
// it (BINARY.dSYM, as Breakpad's dump_syms -g), or of a dSYM bundle alone
// (no STACK CFI: a dSYM holds no unwind tables). arch chooses one
// architecture of a universal file.
func runMachO(path, arch string, opts dumpsyms.Options, stdout, stderr io.Writer) int {
	var bin, dsym *machofile.File
	var err error
	name := path
	dsymPath := machofile.DSYMFile(path)
	if st, serr := os.Stat(path); serr == nil && st.IsDir() {
		if dsymPath == "" {
			fmt.Fprintf(stderr, "dump_syms: %s: no DWARF file in Contents/Resources/DWARF\n", path)
			return 1
		}
		name = strings.TrimSuffix(strings.TrimSuffix(path, "/"), ".dSYM")
	} else {
		if bin, err = machofile.Open(path, arch); err != nil {
			fmt.Fprintf(stderr, "dump_syms: %v\n", err)
			return 1
		}
		defer bin.Close()
		arch = bin.Arch
	}
	if dsymPath != "" && !opts.HeaderOnly {
		d, err := machofile.Open(dsymPath, arch)
		switch {
		case err != nil && bin == nil:
			fmt.Fprintf(stderr, "dump_syms: %v\n", err)
			return 1
		case err != nil:
			fmt.Fprintf(stderr, "dump_syms: warning: %v; using %s alone\n", err, path)
		case bin != nil && d.UUID != bin.UUID:
			fmt.Fprintf(stderr, "dump_syms: warning: %s is not %s's dSYM (UUID %s, not %s); using the binary alone\n",
				dsymPath, path, d.DebugID(), bin.DebugID())
		default:
			dsym = d
		}
		if err == nil {
			defer d.Close()
		}
	}
	if err := dumpsyms.WriteMachO(stdout, bin, dsym, filepath.Clean(name), opts); err != nil {
		fmt.Fprintf(stderr, "dump_syms: %v\n", err)
		return 1
	}
	return 0
}
