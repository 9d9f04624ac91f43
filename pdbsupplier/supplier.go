package pdbsupplier

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/dumpsyms"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/oncemap"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// Supplier makes symbol files from PDBs under its roots. It is safe for
// concurrent use and builds each module's file at most once.
type Supplier struct {
	roots []string
	// MaxDecompressed bounds a PDB extracted from a .pd_ cabinet;
	// DefaultMaxDecompressed when 0.
	MaxDecompressed int64
	// UseModulePath also looks beside the module's code file when the
	// dump names it by an absolute path of this system (a dump processed
	// where it was written).
	UseModulePath bool

	done oncemap.Map[symfile.ModuleKey, *symfile.File]
}

// New returns a Supplier that looks for PDBs under roots.
func New(roots ...string) *Supplier {
	return &Supplier{roots: roots}
}

// NotFoundError says why no PDB was used for a module: none found, or the
// files looked at and refused.
type NotFoundError struct {
	Module  string
	Refused []Refusal
}

func (e *NotFoundError) Error() string {
	if len(e.Refused) == 0 {
		return e.Module + ": no PDB found"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: no PDB used:", e.Module)
	for _, r := range e.Refused {
		fmt.Fprintf(&b, " %s (%s);", r.Path, r.Reason)
	}
	return strings.TrimSuffix(b.String(), ";")
}

func (e *NotFoundError) Unwrap() error { return symfile.ErrNotFound }

// Symbols implements symfile.Supplier.
func (s *Supplier) Symbols(m symfile.ModuleKey) (*symfile.File, error) {
	return s.done.Get(m, func() (*symfile.File, error) { return s.build(m) })
}

func (s *Supplier) build(m symfile.ModuleKey) (*symfile.File, error) {
	limit := s.MaxDecompressed
	if limit <= 0 {
		limit = DefaultMaxDecompressed
	}
	roots := s.roots
	if s.UseModulePath && filepath.IsAbs(m.CodeFile) {
		roots = append([]string{filepath.Dir(m.CodeFile)}, roots...)
	}
	o, refused := Locate(roots, m.DebugFile, m.DebugID, limit)
	if o == nil {
		return nil, &NotFoundError{Module: m.DebugFile, Refused: refused}
	}
	defer o.Close()
	return symbolsOf(o, m)
}

// symbolsOf writes the .sym of an opened PDB and parses it.
func symbolsOf(o *Opened, m symfile.ModuleKey) (*symfile.File, error) {
	var out bytes.Buffer
	in := dumpsyms.PDBInput{PDB: o.PDB, PDBPath: o.Path}
	if err := dumpsyms.WritePDB(&out, in, dumpsyms.Options{Inlines: true, Name: DebugName(m.DebugFile)}); err != nil {
		return nil, err
	}
	return symfile.NewFile(out.Bytes(), o.Path+" (as .sym)")
}

// FileSymbols returns the symbols of the PDB, or of the PDB in the .pd_
// cabinet, at path, when it is module m's (its GUID and age are m's debug
// id): the converter a Microsoft-protocol symbol server client
// (symsrv.WithPDBs) checks downloads with.
func FileSymbols(path string, m symfile.ModuleKey) (*symfile.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	o, err := open(path, DebugName(m.DebugFile), st.Size(), DefaultMaxDecompressed)
	if err != nil {
		return nil, err
	}
	defer o.Close()
	id, err := dumpsyms.PDBModuleID(o.PDB)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(id, m.DebugID) {
		return nil, fmt.Errorf("a PDB of debug id %s, not %s", id, m.DebugID)
	}
	return symbolsOf(o, m)
}
