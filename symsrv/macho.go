package symsrv

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// WithMachO makes the supplier also fetch a macOS or iOS module's own
// Mach-O files when no server has a .sym (nor a PDB) of it: the dSYM's
// DWARF file and the binary, in the layout of Sentry's symbolicator
// ("unified": xx/yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy/debuginfo and .../executable,
// the module's UUID in lower-case hex split after two digits). check
// opens a downloaded file (partial or cached) and says whether it is the
// module's (a slice of its UUID); a file it refuses is not cached and
// fails with ErrWrongModule, naming its URL. symbols makes the module's
// symbol file from the binary and the dSYM found ("" when absent): when
// one of them is refused or fails and the other is good, the good one is
// used and the failure is only traced (WithTrace). The
// cache keeps the files in the same layout, so that it is also a root of
// a local Mach-O search.
func WithMachO(check func(path string, m symfile.ModuleKey) error,
	symbols func(binary, dsym string, m symfile.ModuleKey) (*symfile.File, error)) Option {
	return func(s *Supplier) { s.machoCheck, s.machoSymbols = check, symbols }
}

// Mach-O magic numbers, both byte orders, 32 and 64 bits, and the
// universal (fat) headers.
var machoHeads = [][]byte{
	{0xfe, 0xed, 0xfa, 0xce}, {0xce, 0xfa, 0xed, 0xfe},
	{0xfe, 0xed, 0xfa, 0xcf}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe}, {0xca, 0xfe, 0xba, 0xbf},
}

// notMachOName reports whether name is a Windows or ELF module's debug
// file name (.pdb, .dll, .exe, .sys, .so, .so.N...): such a module's files
// are not asked for in the Mach-O layouts. A function, not a regexp, so
// that the package does no work at start-up (TestStartupInitialisers).
func notMachOName(name string) bool {
	lower := strings.ToLower(name)
	versioned := false
	for {
		dot := strings.LastIndexByte(lower, '.')
		if dot < 0 {
			return false
		}
		switch ext := lower[dot+1:]; {
		case ext == "so":
			return true
		case ext == "pdb" || ext == "dll" || ext == "exe" || ext == "sys":
			return !versioned
		case ext == "" || strings.Trim(ext, "0123456789") != "":
			return false
		}
		versioned = true // a version number: look at what it follows
		lower = lower[:dot]
	}
}

// machoUUID is the lower-case hex UUID of a module that may be a Mach-O
// one, or "": its debug id is a UUID and age 0, as Crashpad and Breakpad
// write a Mach-O module's, and its debug file has no Windows or ELF name.
func machoUUID(m symfile.ModuleKey) string {
	id := m.DebugID
	if len(id) != 33 || id[32] != '0' || notMachOName(symfile.BaseName(m.DebugFile)) {
		return ""
	}
	if _, err := hex.DecodeString(id[:32]); err != nil {
		return ""
	}
	return strings.ToLower(id[:32])
}

// machoFileSymbols fetches m's dSYM and binary from the cache or a server
// and makes its symbols of them.
func (s *Supplier) machoFileSymbols(m symfile.ModuleKey) (*symfile.File, error) {
	uuid := machoUUID(m)
	if s.machoCheck == nil || uuid == "" {
		return nil, fmt.Errorf("%w: no Mach-O file asked for", symfile.ErrNotFound)
	}
	fm := &format{
		what:  "a Mach-O file",
		heads: machoHeads,
		open: func(path, target string) (*symfile.File, error) {
			if err := s.machoCheck(path, m); err != nil {
				// The partial file's name says nothing to the user: the
				// caller names the URL.
				why := strings.ReplaceAll(err.Error(), path+": ", "")
				return nil, fmt.Errorf("%w: not a Mach-O file of UUID %s: %s", ErrWrongModule, strings.ToUpper(uuid), why)
			}
			// A stand-in: the files are read together once both are in.
			return symfile.NewFile([]byte("MODULE mac unknown "+m.DebugID+" "+symfile.BaseName(m.DebugFile)+"\n"), target)
		},
	}
	var found [2]string // debuginfo, executable
	var failures []error
	for i, kind := range []string{"debuginfo", "executable"} {
		rel := uuid[:2] + "/" + uuid[2:] + "/" + kind
		_, err := s.files.Get("macho:"+rel, func() (*symfile.File, error) { return s.fetchAs(fm, rel, m) })
		if s.trace != nil {
			s.trace(m, rel+" (cache "+s.cacheDir+", servers "+strings.Join(s.urlStrings(), ", ")+")", err)
		}
		switch {
		case err == nil:
			found[i], _ = s.cachePath(rel)
		case !errors.Is(err, symfile.ErrNotFound):
			failures = append(failures, err)
		}
	}
	if found[0] == "" && found[1] == "" {
		if len(failures) > 0 {
			return nil, errors.Join(failures...)
		}
		return nil, fmt.Errorf("%w: Mach-O files of %s %s", symfile.ErrNotFound, symfile.BaseName(m.DebugFile), m.DebugID)
	}
	f, err := s.machoSymbols(found[1], found[0], m)
	if err != nil && f == nil {
		err = &symfile.CorruptError{File: s.cacheDir + "/" + uuid[:2] + "/" + uuid[2:], Err: err}
	}
	return f, err
}
