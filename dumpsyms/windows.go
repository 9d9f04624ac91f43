package dumpsyms

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/pdb"
	"github.com/minidump-stackwalk/minidump-stackwalk/pe"
)

// PDBInput is what WritePDB reads: a PDB and, optionally, its executable
// (for INFO CODE_ID and, on x64, STACK CFI).
type PDBInput struct {
	PDB      *pdb.File
	PDBPath  string
	Image    *pe.File // nil: no INFO CODE_ID, no STACK CFI
	ImageExe string   // the image's path
}

// machineArch names an IMAGE_FILE_MACHINE value as Breakpad's MODULE lines
// do, "unknown" when it has no name there. A switch, not a map: no
// initialiser runs at start.
func machineArch(machine uint16) string {
	switch machine {
	case 0x14c:
		return "x86"
	case 0x8664:
		return "x86_64"
	case 0xaa64:
		return "arm64"
	case 0x1c4, 0x1c0:
		return "arm"
	}
	return "unknown"
}

// PDBModuleID returns Breakpad's debug identifier of a PDB: the GUID, then
// the DBI stream's age (the age the executable's RSDS record carries; the
// info stream's grows with incremental links), in hex.
func PDBModuleID(f *pdb.File) (string, error) {
	in, err := f.Info()
	if err != nil {
		return "", err
	}
	age := in.Age
	if d, err := f.DBI(); err == nil && d.Age != 0 {
		age = d.Age
	} else if err != nil {
		return "", err
	}
	return in.GUID.String() + strconv.FormatUint(uint64(age), 16), nil
}

// WritePDB writes the Breakpad symbol file of a PDB as Breakpad's Windows
// dump_syms writes it (see docs/windows.md for what differs).
func WritePDB(w io.Writer, in PDBInput, opts Options) error {
	if err := writePDB(w, in, opts); err != nil {
		return fmt.Errorf("%s: %w", in.PDBPath, err)
	}
	return nil
}

func writePDB(w io.Writer, in PDBInput, opts Options) error {
	f := in.PDB
	id, err := PDBModuleID(f)
	if err != nil {
		return err
	}
	d, _ := f.DBI()
	arch := machineArch(d.Machine)
	name := baseName(in.PDBPath)
	if opts.Name != "" {
		name = opts.Name
	}
	if in.Image != nil {
		if err := checkImage(in.Image, id); err != nil {
			return fmt.Errorf("%s: %w", in.ImageExe, err)
		}
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "MODULE windows %s %s %s\n", arch, id, name)
	if in.Image != nil {
		fmt.Fprintf(bw, "INFO CODE_ID %s %s\n", in.Image.CodeID(), baseName(in.ImageExe))
	}
	if opts.HeaderOnly {
		return bw.Flush()
	}
	sw, err := newSymWriter(f, arch == "x86")
	if err != nil {
		return err
	}
	sw.inlines = opts.Inlines
	if err := sw.collect(); err != nil {
		return err
	}
	sw.writeFiles(bw)
	sw.writeSymbols(bw)
	if !opts.NoCFI {
		if err := writeStackWin(bw, f); err != nil {
			return err
		}
		if in.Image != nil {
			if err := writeX64CFI(bw, in.Image, opts.BreakpadCompat); err != nil {
				return fmt.Errorf("%s: %w", in.ImageExe, err)
			}
		}
	}
	sw.writeOrigins(bw)
	return bw.Flush()
}

// checkImage refuses an executable whose CodeView record names another PDB.
func checkImage(img *pe.File, id string) error {
	cv, err := img.CodeView()
	if err != nil {
		return err
	}
	if cv == nil {
		return fmt.Errorf("no CodeView record: cannot tell it belongs to the PDB")
	}
	if !strings.EqualFold(cv.DebugID(), id) {
		return fmt.Errorf("its PDB is %s %s, not this PDB (%s)", cv.DebugFile(), cv.DebugID(), id)
	}
	return nil
}

// baseName is the last element of a Windows or POSIX path.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return filepath.Base(p)
}
