package machosupplier

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/dumpsyms"
	"github.com/minidump-stackwalk/minidump-stackwalk/machofile"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// mhDSYM is the file type of a dSYM's DWARF file (MH_DSYM).
const mhDSYM = 0xa

// Locator finds a module's Mach-O binary and dSYM.
type Locator struct {
	Roots         []string // directories searched by name and by UUID
	UseModulePath bool     // also the path the dump names
}

// Found is what Find found: a binary and a dSYM DWARF file, each "" when
// none matched.
type Found struct {
	Binary, DSYM string
	Refused      []string // files looked at whose UUID or format did not fit, with why
}

// ParseUUID reads a module's UUID from its Breakpad debug id (32 hex
// digits and an age) or a code id of 32 hex digits.
func ParseUUID(id string) ([16]byte, bool) {
	var u [16]byte
	if len(id) < 32 {
		return u, false
	}
	b, err := hex.DecodeString(id[:32])
	if err != nil {
		return u, false
	}
	copy(u[:], b)
	return u, true
}

// candidates lists the paths to try for a module, binaries and dSYMs alike.
func (l *Locator) candidates(m symfile.ModuleKey, uuid [16]byte) []string {
	var out []string
	add := func(p string) {
		out = append(out, p, machofile.DSYMFile(p))
	}
	if l.UseModulePath && m.CodeFile != "" {
		add(m.CodeFile)
	}
	h := strings.ToLower(hex.EncodeToString(uuid[:]))
	H := strings.ToUpper(h)
	for _, root := range l.Roots {
		for _, name := range []string{m.CodeFile, m.DebugFile} {
			if base := baseName(name); base != "" {
				add(filepath.Join(root, base))
			}
		}
		unified := filepath.Join(root, h[:2], h[2:])
		out = append(out, filepath.Join(unified, "executable"), filepath.Join(unified, "debuginfo"))
		lldb := filepath.Join(root, H[0:4], H[4:8], H[8:12], H[12:16], H[16:20], H[20:])
		add(lldb)
		out = append(out, lldb)
	}
	return out
}

// baseName is the last element of a path of either OS's separators.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, "/\\"); i >= 0 {
		p = p[i+1:]
	}
	if p == "." || p == ".." {
		return ""
	}
	return p
}

// Find looks for m's binary and dSYM.
func (l *Locator) Find(m symfile.ModuleKey) (Found, error) {
	var f Found
	uuid, ok := ParseUUID(m.DebugID)
	if !ok {
		if uuid, ok = ParseUUID(m.CodeID); !ok {
			return f, fmt.Errorf("%s: debug id %q is not a Mach-O UUID", m.CodeFile, m.DebugID)
		}
	}
	seen := map[string]bool{}
	for _, p := range l.candidates(m, uuid) {
		if p == "" || seen[p] || (f.Binary != "" && f.DSYM != "") {
			continue
		}
		seen[p] = true
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			continue
		}
		slices, err := machofile.OpenSlices(p)
		if err != nil {
			f.Refused = append(f.Refused, fmt.Sprintf("%s (%v)", p, err))
			continue
		}
		slices[0].Close()
		s := machofile.WithUUID(slices, uuid)
		if s == nil {
			f.Refused = append(f.Refused, fmt.Sprintf("%s (another UUID)", p))
			continue
		}
		isDSYM := s.Type == mhDSYM
		switch {
		case isDSYM && f.DSYM == "":
			f.DSYM = p
		case !isDSYM && f.Binary == "":
			f.Binary = p
		}
	}
	return f, nil
}

// Supplier makes symbol files from Mach-O files. It is safe for
// concurrent use and builds each module's file at most once.
type Supplier struct {
	locator *Locator
	mu      sync.Mutex
	done    map[symfile.ModuleKey]*result
}

type result struct {
	once sync.Once
	file *symfile.File
	err  error
}

// New returns a Supplier that finds files with l.
func New(l *Locator) *Supplier {
	return &Supplier{locator: l, done: map[symfile.ModuleKey]*result{}}
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
	r.once.Do(func() { r.file, r.err = s.build(m) })
	return r.file, r.err
}

// NotFoundError says why no Mach-O file was used for a module.
type NotFoundError struct {
	Module  string
	Refused []string
}

func (e *NotFoundError) Error() string {
	if len(e.Refused) == 0 {
		return fmt.Sprintf("%s: no Mach-O file or dSYM found", e.Module)
	}
	return fmt.Sprintf("%s: no Mach-O file used: %s", e.Module, strings.Join(e.Refused, "; "))
}

func (e *NotFoundError) Unwrap() error { return symfile.ErrNotFound }

func (s *Supplier) build(m symfile.ModuleKey) (*symfile.File, error) {
	found, err := s.locator.Find(m)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", symfile.ErrNotFound, err)
	}
	if found.Binary == "" && found.DSYM == "" {
		return nil, &NotFoundError{Module: m.CodeFile, Refused: found.Refused}
	}
	return FromFiles(found.Binary, found.DSYM, m)
}

// moduleUUID is m's UUID: from its debug id, else its code id.
func moduleUUID(m symfile.ModuleKey) ([16]byte, bool) {
	if uuid, ok := ParseUUID(m.DebugID); ok {
		return uuid, true
	}
	return ParseUUID(m.CodeID)
}

// openSlice opens the slice of Mach-O file p whose UUID is uuid.
func openSlice(p string, uuid [16]byte) (*machofile.File, error) {
	slices, err := machofile.OpenSlices(p)
	if err != nil {
		return nil, err
	}
	if f := machofile.WithUUID(slices, uuid); f != nil {
		return f, nil
	}
	slices[0].Close()
	return nil, fmt.Errorf("%s: no slice of UUID %X", p, uuid)
}

// CheckFile reports whether the file at path is a Mach-O binary or dSYM
// DWARF file with a slice of m's UUID (nil), or why not.
func CheckFile(path string, m symfile.ModuleKey) error {
	uuid, ok := moduleUUID(m)
	if !ok {
		return fmt.Errorf("debug id %q is not a Mach-O UUID", m.DebugID)
	}
	f, err := openSlice(path, uuid)
	if err != nil {
		return err
	}
	return f.Close()
}

// FromFiles makes m's symbol file from its Mach-O binary and dSYM DWARF
// file (either "" when absent), using the slices of m's UUID.
func FromFiles(binary, dsym string, m symfile.ModuleKey) (*symfile.File, error) {
	uuid, ok := moduleUUID(m)
	if !ok {
		return nil, fmt.Errorf("%w: debug id %q is not a Mach-O UUID", symfile.ErrNotFound, m.DebugID)
	}
	open := func(p string) (*machofile.File, error) {
		if p == "" {
			return nil, nil
		}
		return openSlice(p, uuid)
	}
	bin, err := open(binary)
	if err != nil {
		return nil, err
	}
	if bin != nil {
		defer bin.Close()
	}
	dsymFile, err := open(dsym)
	if err != nil {
		return nil, err
	}
	if dsymFile != nil {
		defer dsymFile.Close()
	}
	path := binary
	if path == "" {
		path = dsym
	}
	name := baseName(m.CodeFile)
	if name == "" {
		name = baseName(m.DebugFile)
	}
	var out bytes.Buffer
	if err := dumpsyms.WriteMachO(&out, bin, dsymFile, path, dumpsyms.Options{Name: name, Inlines: true}); err != nil {
		return nil, err
	}
	return symfile.NewFile(out.Bytes(), path+" (as .sym)")
}
