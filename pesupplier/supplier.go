package pesupplier

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/regfile"

	"github.com/minidump-stackwalk/minidump-stackwalk/pe"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// Bounds on what the supplier reads: one image, and all images of a run
// (they are held in memory for the walk).
const (
	MaxImageBytes      = 512 << 20
	MaxTotalImageBytes = 1 << 30
)

// Supplier finds modules' PE images under its roots and gives their
// exports as symbols and their unwind tables and code as the walkers'
// evidence. It is safe for concurrent use and reads each image at most
// once.
type Supplier struct {
	roots []string
	// useModulePath: also the path the dump names (on Windows, where the
	// dump was written on this machine).
	useModulePath bool

	mu    sync.Mutex
	done  map[symfile.ModuleKey]*result
	bytes int64 // image bytes held, against MaxTotalImageBytes
}

type result struct {
	once   sync.Once
	file   *symfile.File
	native *Module
	err    error
}

// New returns a Supplier looking under roots: for a module named
// name.dll with code id ID, root/name.dll and the Microsoft symbol store
// layout root/name.dll/ID/name.dll. Only an image whose own code id
// (TimeDateStamp and SizeOfImage) equals the module's is used.
// With useModulePath, the path the dump names for the module comes first
// when it is an absolute path on this machine.
func New(roots []string, useModulePath bool) *Supplier {
	return &Supplier{roots: roots, useModulePath: useModulePath, done: map[symfile.ModuleKey]*result{}}
}

// Symbols implements symfile.Supplier: the image's exports as PUBLIC
// records (no line or unwind records: the walkers read the unwind tables
// through Native).
func (s *Supplier) Symbols(m symfile.ModuleKey) (*symfile.File, error) {
	r := s.get(m)
	return r.file, r.err
}

// Native implements processor.NativeSupplier: the module's image, nil
// when none was found.
func (s *Supplier) Native(m symfile.ModuleKey) walker.NativeModule {
	if r := s.get(m); r.native != nil {
		return r.native
	}
	return nil
}

func (s *Supplier) get(m symfile.ModuleKey) *result {
	s.mu.Lock()
	r := s.done[m]
	if r == nil {
		r = &result{}
		s.done[m] = r
	}
	s.mu.Unlock()
	r.once.Do(func() { r.file, r.native, r.err = s.build(m) })
	return r
}

// codeFileName is the module's file name without its directory (either
// separator), refused when it could leave a root.
func codeFileName(path string) (string, bool) {
	name := path
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, 0) || strings.Contains(name, ":") {
		return "", false
	}
	return name, true
}

// candidates are the paths an image may have under the roots.
func (s *Supplier) candidates(name, codeID string) []string {
	var out []string
	for _, root := range s.roots {
		out = append(out, filepath.Join(root, name))
		if codeID == "" || strings.ContainsAny(codeID, `/\.`) || len(codeID) > 16 {
			continue
		}
		// Symbol stores write TIMESTAMP in upper case and SIZEOFIMAGE in
		// lower case (Breakpad's code id); some write both in upper case.
		for _, id := range []string{codeID, canonicalCodeID(codeID), strings.ToUpper(codeID)} {
			if p := filepath.Join(root, name, id, name); !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func (s *Supplier) build(m symfile.ModuleKey) (*symfile.File, *Module, error) {
	name, ok := codeFileName(m.CodeFile)
	if !ok || !isPEName(name) {
		return nil, nil, fmt.Errorf("%s: %w", m.CodeFile, symfile.ErrNotFound)
	}
	var refused []string
	paths := s.candidates(name, m.CodeID)
	if s.useModulePath && filepath.IsAbs(m.CodeFile) {
		paths = append([]string{filepath.Clean(m.CodeFile)}, paths...)
	}
	for _, path := range paths {
		img, data, err := s.open(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			refused = append(refused, err.Error())
			continue
		}
		if m.CodeID != "" && !strings.EqualFold(img.CodeID(), m.CodeID) {
			refused = append(refused, fmt.Sprintf("%s: code id %s, not %s", path, img.CodeID(), m.CodeID))
			s.release(int64(len(data)))
			continue
		}
		return s.load(m, img, name, path)
	}
	if len(refused) > 0 {
		return nil, nil, fmt.Errorf("%s: no PE image used: %s: %w", m.CodeFile, strings.Join(refused, "; "), symfile.ErrNotFound)
	}
	return nil, nil, fmt.Errorf("%s: no PE image found: %w", m.CodeFile, symfile.ErrNotFound)
}

// canonicalCodeID writes a code id as Breakpad does: the 8 digits of the
// timestamp in upper case, the size in lower case.
func canonicalCodeID(id string) string {
	if len(id) <= 8 {
		return strings.ToUpper(id)
	}
	return strings.ToUpper(id[:8]) + strings.ToLower(id[8:])
}

func isPEName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	switch ext {
	case ".exe", ".dll", ".sys", ".ocx", ".drv", ".cpl", ".scr", ".efi", ".node", ".pyd":
		return true
	}
	return false
}

// open reads the image at path into memory, within the run's budget.
func (s *Supplier) open(path string) (*pe.File, []byte, error) {
	fh, _, err := regfile.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > MaxImageBytes {
		return nil, nil, fmt.Errorf("%s: not a regular file of at most %d bytes", path, MaxImageBytes)
	}
	if !s.reserve(st.Size()) {
		return nil, nil, fmt.Errorf("%s: over the run's %d bytes of images", path, MaxTotalImageBytes)
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(fh, data); err != nil {
		s.release(st.Size())
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	img, err := imageBytes(data)
	if err != nil {
		s.release(st.Size())
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return img, data, nil
}

func (s *Supplier) reserve(n int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > MaxTotalImageBytes-s.bytes {
		return false
	}
	s.bytes += n
	return true
}

func (s *Supplier) release(n int64) {
	s.mu.Lock()
	s.bytes -= n
	s.mu.Unlock()
}

// load makes the module's symbol file (exports) and walker evidence.
func (s *Supplier) load(m symfile.ModuleKey, img *pe.File, name, path string) (*symfile.File, *Module, error) {
	exports, err := img.Exports()
	if err != nil {
		exports = nil // the unwind tables are still good
	}
	native, err := newModule(img, path, exports)
	if err != nil { // the exports without the unwind tables
		native = &Module{img: img, path: path}
	}
	file, err := symfile.NewFile(symText(m, img, name, exports, native), path+" (exports as .sym)")
	if err != nil {
		return nil, nil, err
	}
	if native.x64 == nil && native.arm64 == nil && img.Machine != pe.MachineAMD64 && img.Machine != pe.MachineARM64 {
		return file, nil, nil
	}
	return file, native, nil
}
