package symsrv

import (
	"errors"
	"fmt"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// WithPDBs makes the supplier also a Microsoft-protocol symbol server
// client: for a Windows module (its debug file a .pdb) that no server has
// a .sym of, it asks each server for name.pdb/<debug id>/name.pdb, then
// for the cabinet name.pdb/<debug id>/name.pd_, as symsrv and the
// debuggers ask Microsoft's server. convert opens such a file (a partial
// download or a cached one), checks that it is the module's PDB (its GUID
// and age) and returns its symbols; a file it refuses is not cached.
// Downloads keep every bound, retry, negative cache and server state of
// the .sym downloads; the cache holds the files in the store's layout, so
// that a PDB supplier can read the cache directory as a symbol store.
func WithPDBs(convert func(path string, m symfile.ModuleKey) (*symfile.File, error)) Option {
	return func(s *Supplier) { s.pdbs = convert }
}

// MSF and cabinet magic: the first bytes of a PDB and of a .pd_ file.
var (
	msfMagic = []byte("Microsoft C/C++ MSF 7.00\r\n")
	cabMagic = []byte("MSCF")
)

// pdbSymbols fetches m's PDB (or its cabinet) from the cache or a server.
func (s *Supplier) pdbSymbols(m symfile.ModuleKey) (*symfile.File, error) {
	base := symfile.BaseName(m.DebugFile)
	if s.pdbs == nil || !strings.HasSuffix(strings.ToLower(base), ".pdb") ||
		!symfile.SafePathElement(base) || !symfile.SafePathElement(m.DebugID) {
		return nil, fmt.Errorf("%w: no PDB asked for", symfile.ErrNotFound)
	}
	fm := &format{
		what:  "a PDB or a cabinet",
		heads: [][]byte{msfMagic, cabMagic},
		open: func(path, target string) (*symfile.File, error) {
			f, err := s.pdbs(path, m)
			if err != nil && f == nil {
				err = &symfile.CorruptError{File: target, Err: err}
			}
			return f, err
		},
	}
	var failures []error
	for _, name := range []string{base, base[:len(base)-1] + "_"} {
		rel := base + "/" + m.DebugID + "/" + name
		f, err := s.files.Get("pdb:"+rel, func() (*symfile.File, error) { return s.fetchAs(fm, rel, m) })
		if s.trace != nil {
			s.trace(m, rel+" (cache "+s.cacheDir+", servers "+strings.Join(s.urlStrings(), ", ")+")", err)
		}
		if err == nil || !errors.Is(err, symfile.ErrNotFound) {
			var de *DownloadError
			if err == nil || !errors.As(err, &de) {
				return f, err
			}
			failures = append(failures, err)
		}
	}
	if len(failures) > 0 {
		return nil, errors.Join(failures...)
	}
	return nil, fmt.Errorf("%w: %s %s", symfile.ErrNotFound, base, m.DebugID)
}
