package elfsupplier

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/debuginfod"
	"github.com/minidump-stackwalk/minidump-stackwalk/dumpsyms"
	"github.com/minidump-stackwalk/minidump-stackwalk/elfsym"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/regfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// Supplier makes symbol files from ELF files. It is safe for concurrent
// use and builds each module's file at most once.
type Supplier struct {
	*shared
	ctx context.Context // cancels debuginfod downloads
}

// shared is what the views of a Supplier (WithContext) share.
type shared struct {
	locator *elfsym.Locator

	mu   sync.Mutex
	done map[symfile.ModuleKey]*result
	// codeBytes is what the modules built so far keep of their files'
	// code (MaxTotalCodeBytes bounds it); guarded by mu.
	codeBytes int64
}

type result struct {
	once   sync.Once
	file   *symfile.File
	native *Module // nil without the binary (a debug file has no code)
	err    error
}

// New returns a Supplier that finds files with l. ctx bounds debuginfod
// downloads.
func New(ctx context.Context, l *elfsym.Locator) *Supplier {
	return &Supplier{shared: &shared{locator: l, done: map[symfile.ModuleKey]*result{}}, ctx: ctx}
}

// WithContext returns a view of s whose debuginfod downloads ctx cancels
// (a batch dump's --timeout), sharing s's files. A module whose build ctx
// cut short is not kept: the next request builds it again.
func (s *Supplier) WithContext(ctx context.Context) *Supplier {
	return &Supplier{shared: s.shared, ctx: ctx}
}

// Symbols implements symfile.Supplier.
func (s *Supplier) Symbols(m symfile.ModuleKey) (*symfile.File, error) {
	s.mu.Lock()
	r := s.done[m]
	if r == nil {
		r = &result{}
		s.done[m] = r
	}
	s.mu.Unlock()
	r.once.Do(func() { r.file, r.native, r.err = s.build(m) })
	if r.file == nil && s.ctx.Err() != nil {
		s.mu.Lock()
		if s.done[m] == r {
			delete(s.done, m)
		}
		s.mu.Unlock()
	}
	return r.file, r.err
}

// Native implements processor.NativeSupplier: the module's ELF file as
// evidence for the walker (see Module), nil when no binary with the
// module's build id was found or its code could not be read.
func (s *Supplier) Native(m symfile.ModuleKey) walker.NativeModule {
	s.Symbols(m)
	s.mu.Lock()
	r := s.done[m]
	s.mu.Unlock()
	if r == nil || r.native == nil { // nil: its build was cancelled
		return nil // not a nil *Module in an interface
	}
	return r.native
}

// NotFoundError says why no ELF file was used for a module: none found,
// or the files looked at and refused.
type NotFoundError struct {
	Module  string
	Refused []elfsym.Refusal
}

func (e *NotFoundError) Error() string {
	if len(e.Refused) == 0 {
		return fmt.Sprintf("%s: no ELF file found", e.Module)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: no ELF file used:", e.Module)
	for _, r := range e.Refused {
		fmt.Fprintf(&b, " %s (%s);", r.Path, r.Reason)
	}
	return strings.TrimSuffix(b.String(), ";")
}

func (e *NotFoundError) Unwrap() error { return symfile.ErrNotFound }

// notFound is the error for a module no ELF file was used for. A file
// that was given for it and refused (a debuginfod answer that is not an
// ELF file with its build id; under a --debuginfo-path root, or at a
// .build-id path, a file that is not it) makes its symbols corrupt, as a
// malformed .sym does: the module is marked so in the reports. A failed
// download (a server down, the time budget spent) is the debuginfod
// client's error, which callers print as a warning. The module's own path
// and the system's files beside it are only looked at: a build other than
// the dump's there (a dump from another machine) is not found.
func (s *Supplier) notFound(m symfile.ModuleKey, refused []elfsym.Refusal) error {
	nf := &NotFoundError{Module: m.CodeFile, Refused: refused}
	var downloads []error
	for _, r := range refused {
		switch {
		case errors.Is(r.Err, debuginfod.ErrWrongBuildID), r.Err == nil && s.given(r.Path):
			return &symfile.CorruptError{File: r.Path, Err: nf}
		case r.Err != nil:
			downloads = append(downloads, r.Err)
		}
	}
	if len(downloads) > 0 {
		return fmt.Errorf("%s: %w", m.CodeFile, errors.Join(downloads...))
	}
	return nf
}

// given reports whether a local file was given for its module: under a
// --debuginfo-path root, or named by the build id (.build-id/xx/rest.debug).
func (s *Supplier) given(path string) bool {
	if strings.Contains(filepath.ToSlash(path), "/.build-id/") {
		return true
	}
	for _, root := range s.locator.Roots {
		if rel, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}

func (s *Supplier) build(m symfile.ModuleKey) (*symfile.File, *Module, error) {
	codeID, err := hex.DecodeString(strings.ToLower(m.CodeID))
	if err != nil || len(codeID) == 0 {
		return nil, nil, fmt.Errorf("%s: code id %q is not a build id: %w", m.CodeFile, m.CodeID, symfile.ErrNotFound)
	}
	found, err := s.locator.Find(s.ctx, m.CodeFile, codeID)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v: %w", m.CodeFile, err, symfile.ErrNotFound)
	}
	if found.Binary == "" && found.Debug == "" {
		return nil, nil, s.notFound(m, found.Refused)
	}
	var bin, debug *elf.File
	if found.Binary != "" {
		var closeBin func() error
		if bin, closeBin, err = regfile.ELF(found.Binary); err != nil { // a FIFO must not block
			return nil, nil, fmt.Errorf("%s: %w", found.Binary, err)
		}
		defer closeBin()
	}
	if found.Debug != "" {
		var closeDebug func() error
		if debug, closeDebug, err = regfile.ELF(found.Debug); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", found.Debug, err)
		}
		defer closeDebug()
	}
	main, path := bin, found.Binary
	if main == nil { // a debug file alone still has symbols and .debug_frame
		main, debug, path = debug, nil, found.Debug
	}
	var out bytes.Buffer
	name := m.CodeFile
	if i := strings.LastIndexAny(name, "/\\"); i >= 0 {
		name = name[i+1:]
	}
	if err := dumpsyms.WriteWithDebug(&out, main, debug, path, dumpsyms.Options{Name: name, Inlines: true}); err != nil {
		return nil, nil, err
	}
	file, err := symfile.NewFile(out.Bytes(), path+" (as .sym)")
	if err != nil || bin == nil {
		return file, nil, err
	}
	// The binary's code and function starts; a file whose code cannot be
	// read still gives its .sym.
	var native *Module
	if st, err := os.Stat(found.Binary); err == nil && s.reserveCode(bin) {
		native, _ = newModule(bin, debug, found.Binary, st.Size(), file)
	}
	return file, native, nil
}

// reserveCode counts f's executable file bytes against MaxTotalCodeBytes;
// false when they do not fit.
func (s *Supplier) reserveCode(f *elf.File) bool {
	var n int64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			if p.Filesz > MaxTotalCodeBytes {
				return false
			}
			n += int64(p.Filesz)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n < 0 || n > MaxTotalCodeBytes-s.codeBytes {
		return false
	}
	s.codeBytes += n
	return true
}
