package dumpsyms

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/regfile"

	"github.com/minidump-stackwalk/minidump-stackwalk/pdb"
	"github.com/minidump-stackwalk/minidump-stackwalk/pe"
)

// WindowsKind sniffs a file: "pdb" (MSF 7.0), "pe" (an MZ image) or "".
func WindowsKind(path string) string {
	f, _, err := regfile.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var b [32]byte
	n, _ := io.ReadFull(f, b[:])
	switch {
	case n >= 28 && bytes.HasPrefix(b[:], []byte("Microsoft C/C++ MSF 7.00")):
		return "pdb"
	case n >= 2 && b[0] == 'M' && b[1] == 'Z':
		return "pe"
	}
	return ""
}

// OpenWindows opens a PE image or a PDB for WritePDB, and the other of the
// pair when it lies beside it (a PDB named by the image's CodeView record,
// or with the image's base name; an image with the PDB's base name and
// .exe or .dll) and matches it (the CodeView record's GUID and age). An
// image without its PDB gives pdbInput.PDB nil: WriteWindows then writes
// what the image alone holds. close closes what was opened.
func OpenWindows(path string) (in PDBInput, close func(), err error) {
	var closers []func() error
	close = func() {
		for _, c := range closers {
			c()
		}
	}
	switch WindowsKind(path) {
	case "pdb":
		pf, err := pdb.OpenFile(path)
		if err != nil {
			return in, close, err
		}
		closers = append(closers, pf.Close)
		in.PDB, in.PDBPath = pf, path
		id, err := PDBModuleID(pf)
		if err != nil {
			return in, close, fmt.Errorf("%s: %w", path, err)
		}
		base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		for _, ext := range []string{".exe", ".dll"} {
			img, p := openBeside(path, base+ext)
			if img == nil {
				continue
			}
			if checkImage(img, id) == nil {
				closers = append(closers, img.Close)
				in.Image, in.ImageExe = img, p
				break
			}
			img.Close()
		}
		return in, close, nil
	case "pe":
		img, err := pe.Open(path)
		if err != nil {
			return in, close, err
		}
		closers = append(closers, img.Close)
		in.Image, in.ImageExe = img, path
		cv, err := img.CodeView()
		if err != nil || cv == nil {
			return in, close, nil
		}
		base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		for _, name := range []string{cv.DebugFile(), base + ".pdb"} {
			p := findBeside(path, name)
			if p == "" {
				continue
			}
			pf, err := pdb.OpenFile(p)
			if err != nil {
				continue
			}
			if id, err := PDBModuleID(pf); err == nil && strings.EqualFold(id, cv.DebugID()) {
				closers = append(closers, pf.Close)
				in.PDB, in.PDBPath = pf, p
				break
			}
			pf.Close()
		}
		return in, close, nil
	}
	return in, close, errors.New(path + ": neither a PE image nor a PDB")
}

// findBeside finds name in path's directory, ignoring case as Windows
// does ("" when absent).
func findBeside(path, name string) string {
	if name == "" || strings.ContainsAny(name, `/\`) {
		return ""
	}
	dir := filepath.Dir(path)
	if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
		return filepath.Join(dir, name)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		if strings.EqualFold(e.Name(), name) && e.Type().IsRegular() {
			return filepath.Join(dir, e.Name())
		}
	}
	return ""
}

func openBeside(path, name string) (*pe.File, string) {
	p := findBeside(path, name)
	if p == "" {
		return nil, ""
	}
	img, err := pe.Open(p)
	if err != nil {
		return nil, ""
	}
	return img, p
}

// WriteWindows writes the .sym of what OpenWindows opened: WritePDB's
// records with a PDB; without one, the image's own: MODULE from its
// CodeView record, INFO CODE_ID and a PUBLIC record per exported function.
func WriteWindows(w io.Writer, in PDBInput, opts Options) error {
	if in.PDB != nil {
		return WritePDB(w, in, opts)
	}
	img := in.Image
	cv, err := img.CodeView()
	if err != nil {
		return fmt.Errorf("%s: %w", in.ImageExe, err)
	}
	id, name := "000000000000000000000000000000000", baseName(in.ImageExe)
	if cv != nil {
		id, name = cv.DebugID(), cv.DebugFile()
	}
	if opts.Name != "" {
		name = opts.Name
	}
	arch := machineArch(img.Machine)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "MODULE windows %s %s %s\n", arch, id, name)
	fmt.Fprintf(bw, "INFO CODE_ID %s %s\n", img.CodeID(), baseName(in.ImageExe))
	if opts.HeaderOnly {
		return bw.Flush()
	}
	exps, err := img.Exports()
	if err != nil {
		return fmt.Errorf("%s: %w", in.ImageExe, err)
	}
	last := uint32(0)
	for i, e := range exps {
		if e.RVA == 0 || e.Forwarder != "" || (i > 0 && e.RVA == last) {
			continue
		}
		if sec := img.SectionAt(e.RVA); sec == nil || !sec.Executable() {
			continue // exported data
		}
		last = e.RVA
		n := e.Name
		if n == "" {
			n = fmt.Sprintf("#%d", e.Ordinal)
		}
		fmt.Fprintf(bw, "PUBLIC %x 0 %s\n", e.RVA, n)
	}
	if !opts.NoCFI {
		if err := writeX64CFI(bw, img, opts.BreakpadCompat); err != nil {
			return fmt.Errorf("%s: %w", in.ImageExe, err)
		}
	}
	return bw.Flush()
}
