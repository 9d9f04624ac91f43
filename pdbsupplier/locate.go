package pdbsupplier

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/regfile"

	"github.com/minidump-stackwalk/minidump-stackwalk/cab"
	"github.com/minidump-stackwalk/minidump-stackwalk/dumpsyms"
	"github.com/minidump-stackwalk/minidump-stackwalk/pdb"
)

// DefaultMaxDecompressed bounds the PDB extracted from one .pd_ cabinet
// (it is held in memory while its .sym is written).
const DefaultMaxDecompressed = 1 << 30

// Refusal is a file looked at and not used.
type Refusal struct {
	Path, Reason string
}

// DebugName is the base name of a module's debug file (its PDB) as a
// store names it: the last element of a Windows or POSIX path, "" when
// that is no usable file name.
func DebugName(debugFile string) string {
	name := debugFile
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, 0) {
		return ""
	}
	return name
}

// Candidates lists where a store under root may keep name (a PDB's base
// name) of debug id id, in the order they are tried: flat (root/name), a
// symbol store (root/name/id/name), its compressed form (name.pd_), and
// for a two-tier store (root/index2.txt) the same under root/na/. Names
// and ids are tried as given and in the case symstore writes them
// (lower-case names on case-sensitive file systems, upper-case ids).
func Candidates(root, name, id string) []string {
	if name == "" || DebugName(name) != name || !safeID(id) {
		return nil
	}
	names := []string{name}
	if l := strings.ToLower(name); l != name {
		names = append(names, l)
	}
	ids := []string{id}
	if u := strings.ToUpper(id); u != id {
		ids = append(ids, u)
	}
	tiers := []string{root}
	if _, err := os.Stat(filepath.Join(root, "index2.txt")); err == nil && len(name) >= 2 {
		tiers = append(tiers, filepath.Join(root, strings.ToLower(name[:2])))
	}
	var out []string
	for _, n := range names {
		out = append(out, filepath.Join(root, n))
	}
	for _, t := range tiers {
		for _, n := range names {
			for _, i := range ids {
				out = append(out, filepath.Join(t, n, i, n), filepath.Join(t, n, i, compressedName(n)))
			}
		}
	}
	return out
}

// compressedName is a store's name of the compressed file: the last
// character of the extension replaced by '_'.
func compressedName(name string) string { return name[:len(name)-1] + "_" }

// safeID accepts the hex digits of a debug id, so that it cannot step out
// of a store.
func safeID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}

// Opened is a PDB that matched: its file and the PDB (closed by Close).
type Opened struct {
	Path string
	PDB  *pdb.File
	file *os.File
}

// Close closes the PDB's file.
func (o *Opened) Close() error {
	if o.file != nil {
		return o.file.Close()
	}
	return nil
}

// Locate finds the PDB of debug file name and debug id id under roots
// (see Candidates), opening each candidate and keeping the first whose
// GUID and age are id; the others are refused with the reason.
func Locate(roots []string, debugFile, id string, maxDecompressed int64) (*Opened, []Refusal) {
	name := DebugName(debugFile)
	if name == "" || !strings.HasSuffix(strings.ToLower(name), ".pdb") {
		return nil, nil
	}
	var refused []Refusal
	seen := map[string]bool{}
	for _, root := range roots {
		for _, p := range Candidates(root, name, id) {
			if seen[p] {
				continue
			}
			seen[p] = true
			st, err := os.Stat(p)
			if err != nil || !st.Mode().IsRegular() {
				continue
			}
			o, err := open(p, name, st.Size(), maxDecompressed)
			if err != nil {
				refused = append(refused, Refusal{p, err.Error()})
				continue
			}
			got, err := dumpsyms.PDBModuleID(o.PDB)
			if err == nil && strings.EqualFold(got, id) {
				return o, refused
			}
			o.Close()
			if err == nil {
				err = fmt.Errorf("debug id %s, not %s", got, id)
			}
			refused = append(refused, Refusal{p, err.Error()})
		}
	}
	return nil, refused
}

// open opens a PDB, or the PDB a cabinet holds (held in memory).
func open(p, name string, size, maxDecompressed int64) (*Opened, error) {
	f, _, err := regfile.Open(p)
	if err != nil {
		return nil, err
	}
	var magic [4]byte
	f.ReadAt(magic[:], 0)
	if !cab.IsCabinet(magic[:]) {
		pf, err := pdb.NewFile(f, size)
		if err != nil {
			f.Close()
			return nil, err
		}
		return &Opened{Path: p, PDB: pf, file: f}, nil
	}
	defer f.Close()
	c, err := cab.Open(f, size)
	if err != nil {
		return nil, err
	}
	member, ok := c.Find(name)
	if !ok {
		if member, ok = c.Find(""); !ok {
			return nil, fmt.Errorf("cabinet without %s", name)
		}
	}
	b, err := c.Extract(member, maxDecompressed)
	if err != nil {
		return nil, err
	}
	pf, err := pdb.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("%s in the cabinet: %w", member.Name, err)
	}
	return &Opened{Path: p, PDB: pf}, nil
}
