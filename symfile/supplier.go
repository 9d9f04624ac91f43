package symfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/oncemap"
)

// DirSupplier finds symbol files under local roots. It is safe for
// concurrent use and loads each symbol file at most once.
type DirSupplier struct {
	roots  []string
	index  *IndexDir // nil: files are indexed in memory
	budget *DecompressBudget
	trace  func(m ModuleKey, path string, err error) // WithTrace

	modules oncemap.Map[ModuleKey, *File] // answer per module
	paths   oncemap.Map[string, *File]    // parsed file per path
}

// NewDirSupplier returns a Supplier over roots, searched in order. A root
// may be a directory in Breakpad's layout,
// <debug_file base>/<debug_id>/<debug_file base with .pdb replaced by .sym, else + .sym>,
// with code_file / code_id used the same way when the debug names give no
// file; each name may also end in .sym.gz or .sym.zst. A root may instead
// be a single symbol file, used for the module whose MODULE line it matches.
//
// Compressed files are read with the Decompressor of a DecompressBudget,
// which WithDecompressBudget sets (symcompress.NewDirSupplier does);
// without one they are reported corrupt (ErrNoDecompressor).
func NewDirSupplier(roots ...string) *DirSupplier {
	return &DirSupplier{roots: roots, budget: NewDecompressBudget(0, 0)}
}

// WithDecompressBudget makes s count the data it decompresses against b
// (which may be shared with other suppliers) and returns s. Call it before
// the first Symbols call.
func (s *DirSupplier) WithDecompressBudget(b *DecompressBudget) *DirSupplier {
	s.budget = b
	return s
}

// NewIndexedDirSupplier is NewDirSupplier with the symbol files opened
// through an index directory (IndexDir.Open); a nil index is NewDirSupplier.
func NewIndexedDirSupplier(index *IndexDir, roots ...string) *DirSupplier {
	return &DirSupplier{roots: roots, index: index}
}

// Symbols implements Supplier. It returns an error wrapping ErrNotFound when
// no root holds the module's symbols. When the file has malformed lines it
// returns the File (whose well-formed records are usable, as in Breakpad)
// together with a *CorruptError naming the first bad line.
func (s *DirSupplier) Symbols(m ModuleKey) (*File, error) {
	return s.modules.Get(m, func() (*File, error) { return s.find(m) })
}

// WithTrace makes s report every path it tries for a module, and what
// came of it (nil: used), to trace; for --verbose=debug. It returns s.
func (s *DirSupplier) WithTrace(trace func(m ModuleKey, path string, err error)) *DirSupplier {
	s.trace = trace
	return s
}

func (s *DirSupplier) tried(m ModuleKey, path string, err error) {
	if s.trace != nil {
		s.trace(m, path, err)
	}
}

func (s *DirSupplier) find(m ModuleKey) (*File, error) {
	for _, root := range s.roots {
		st, err := os.Stat(root)
		if err != nil {
			s.tried(m, root, err)
			continue
		}
		if !st.IsDir() {
			if moduleLineMatches(root, m, s.decompressBudget()) {
				f, err := s.load(root)
				s.tried(m, root, err)
				return f, err
			}
			s.tried(m, root, errors.New("its MODULE line names another module"))
			continue
		}
		for _, p := range candidatePaths(root, m) {
			fi, err := os.Stat(p)
			if err == nil && fi.Mode().IsRegular() {
				f, err := s.load(p)
				s.tried(m, p, err)
				return f, err
			}
			if err == nil {
				err = errors.New("not a regular file")
			}
			s.tried(m, p, err)
		}
	}
	return nil, fmt.Errorf("%w: %s %s", ErrNotFound, BaseName(m.DebugFile), m.DebugID)
}

// load parses a path once, however many modules resolve to it.
func (s *DirSupplier) load(path string) (*File, error) {
	return s.paths.Get(path, func() (*File, error) {
		if s.index != nil {
			// Compressed files are decompressed into the index
			// directory, within the index's DecompressBudget.
			return openCorrupt(s.index, path)
		}
		f, err := OpenWithBudget(path, s.budget)
		var ce *CorruptError
		if err != nil && !errors.As(err, &ce) {
			err = &CorruptError{File: path, Err: err}
		}
		return f, err
	})
}

// BaseName is a module's file name without its directory, as Breakpad's
// PathnameStripper::File takes it: the part after the last '/' or '\'
// (a dump's names may be Windows or Unix paths).
func BaseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// SafePathElement reports whether a name from a dump can be used as one
// element of a path in a symbol store: not empty, not "." or "..", no
// separators or NUL, at most 255 bytes.
func SafePathElement(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\\\x00") && len(s) <= 255
}

// SymbolFileName is the name of the symbol file of a module file (a
// BaseName) in a Breakpad symbol store: .pdb replaced by .sym, otherwise
// .sym appended.
func SymbolFileName(base string) string {
	if len(base) > 4 && strings.EqualFold(base[len(base)-4:], ".pdb") {
		return base[:len(base)-4] + ".sym"
	}
	return base + ".sym"
}

// candidatePaths lists the files to try under root, in order: the debug
// names first, then the code names, each plain, .gz and .zst.
func candidatePaths(root string, m ModuleKey) []string {
	var out []string
	add := func(file, id string) {
		base := BaseName(file)
		if !SafePathElement(base) || !SafePathElement(id) {
			return
		}
		name := SymbolFileName(base)
		for _, ext := range []string{"", ".gz", ".zst"} {
			p := filepath.Join(root, base, id, name+ext)
			if within(root, p) {
				out = append(out, p)
			}
		}
	}
	add(m.DebugFile, m.DebugID)
	add(m.CodeFile, m.CodeID)
	return out
}

// within checks, after cleaning, that p stays under root.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// decompressBudget is the budget, and Decompressor, of s's compressed
// files: the index directory's when s opens files through one.
func (s *DirSupplier) decompressBudget() *DecompressBudget {
	if s.index != nil {
		return s.index.budget
	}
	return s.budget
}

// moduleLineMatches reads the MODULE line of a single-file root (compressed
// files with b's Decompressor) and checks it against the module's debug id
// and debug file (or code id and file).
func moduleLineMatches(path string, m ModuleKey, b *DecompressBudget) bool {
	line, err := firstLine(path, b)
	if err != nil || !bytes.HasPrefix(line, pMODULE) {
		return false
	}
	var buf [4][]byte
	t, ok := tokenize(line[len(pMODULE):], 4, buf[:0])
	if !ok {
		return false
	}
	id, name := string(t[2]), string(t[3])
	if m.DebugID != "" && strings.EqualFold(id, m.DebugID) && name == BaseName(m.DebugFile) {
		return true
	}
	return m.CodeID != "" && strings.EqualFold(id, m.CodeID) && name == BaseName(m.CodeFile)
}

// firstLine returns the first line of a (possibly compressed) symbol file.
func firstLine(path string, b *DecompressBudget) ([]byte, error) {
	if isCompressed(path) {
		return firstCompressedLine(path, b)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r := bufio.NewReaderSize(fh, 4096)
	line, err := r.ReadSlice('\n')
	if err != nil && len(line) == 0 {
		return nil, err
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// openCorrupt opens a symbol file (through index, when not nil), reporting
// any failure as a *CorruptError.
func openCorrupt(index *IndexDir, path string) (*File, error) {
	f, err := index.Open(path)
	var ce *CorruptError
	if err != nil && !errors.As(err, &ce) {
		err = &CorruptError{File: path, Err: err}
	}
	return f, err
}
