package elfsym

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

	"github.com/minidump-stackwalk/minidump-stackwalk/debuginfod"
)

// DefaultDebugDir is where distributions install separate debug files.
const DefaultDebugDir = "/usr/lib/debug"

// Locator finds a module's ELF file and separate debug file.
type Locator struct {
	Roots      []string           // --debuginfo-path directories
	DebugDir   string             // the system debug directory; "" means none
	Debuginfod *debuginfod.Client // nil: no debuginfod
	// UseModulePath allows the path the dump names for the module (a path
	// on this machine only when the dump was written here).
	UseModulePath bool
}

// Refusal is a file looked at and not used.
type Refusal struct {
	Path   string
	Reason string
	// Err is the debuginfod client's error for a download that failed or
	// was refused (a *fetch.Error: ServerDown, the time budget, a wrong
	// build id...); nil for a local file.
	Err error
}

// Found is the result of a search.
type Found struct {
	Binary  string // "" when not found
	Debug   string // the separate debug file; "" when not found
	Refused []Refusal
}

// Find searches for the ELF file and the debug file of the module the dump
// names modulePath with GNU build id codeID.
func (l *Locator) Find(ctx context.Context, modulePath string, codeID []byte) (*Found, error) {
	if len(codeID) == 0 {
		return nil, errors.New("elfsym: the module has no code id")
	}
	id := hex.EncodeToString(codeID)
	found := &Found{}
	name := plainName(filepath.Base(modulePath))
	var candidates []string
	if l.UseModulePath && filepath.IsAbs(modulePath) {
		candidates = append(candidates, filepath.Clean(modulePath))
	}
	if name != "" {
		for _, r := range l.Roots {
			candidates = append(candidates, filepath.Join(r, name))
		}
	}
	for _, c := range candidates {
		if found.check(c, codeID) {
			found.Binary = c
			break
		}
	}
	// Separate debug files by build id.
	var debugs []string
	for _, r := range append(append([]string(nil), l.Roots...), l.DebugDir) {
		if r != "" && len(id) > 2 {
			debugs = append(debugs, filepath.Join(r, ".build-id", id[:2], id[2:]+".debug"))
		}
	}
	for _, c := range debugs {
		if found.check(c, codeID) {
			found.Debug = c
			return found, nil
		}
	}
	if found.Binary != "" {
		for _, c := range l.debuglinkCandidates(found.Binary) {
			if found.check(c, codeID) {
				found.Debug = c
				return found, nil
			}
		}
	}
	if l.Debuginfod != nil {
		if found.Binary == "" {
			if p, err := l.Debuginfod.Fetch(ctx, id, debuginfod.Executable); err == nil {
				found.Binary = p
			} else if !errors.Is(err, debuginfod.ErrNotFound) {
				found.Refused = append(found.Refused, Refusal{Path: "debuginfod executable " + id, Reason: err.Error(), Err: err})
			}
		}
		if p, err := l.Debuginfod.Fetch(ctx, id, debuginfod.DebugInfo); err == nil {
			found.Debug = p
		} else if !errors.Is(err, debuginfod.ErrNotFound) {
			found.Refused = append(found.Refused, Refusal{Path: "debuginfod debuginfo " + id, Reason: err.Error(), Err: err})
		}
	}
	return found, nil
}

// plainName returns a file name that cannot leave a directory, or "".
func plainName(name string) string {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return ""
	}
	return name
}

// debuglinkCandidates are gdb's places for the .gnu_debuglink name of bin:
// its directory, its .debug subdirectory, the system debug directory
// followed by its directory, and each root.
func (l *Locator) debuglinkCandidates(bin string) []string {
	f, err := elf.Open(bin)
	if err != nil {
		return nil
	}
	defer f.Close()
	s := f.Section(".gnu_debuglink")
	if s == nil || s.Size > 4096 {
		return nil
	}
	data, err := s.Data()
	if err != nil {
		return nil
	}
	name := plainName(string(bytes.SplitN(data, []byte{0}, 2)[0]))
	if name == "" {
		return nil
	}
	dir := filepath.Dir(bin)
	out := []string{filepath.Join(dir, name), filepath.Join(dir, ".debug", name)}
	if l.DebugDir != "" {
		out = append(out, filepath.Join(l.DebugDir, dir, name))
	}
	for _, r := range l.Roots {
		out = append(out, filepath.Join(r, name))
	}
	return out
}

// check opens path and accepts it when it is an ELF file with build id
// want; a file that exists and is refused is recorded.
func (f *Found) check(path string, want []byte) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	if !fi.Mode().IsRegular() {
		f.Refused = append(f.Refused, Refusal{Path: path, Reason: "not a regular file"})
		return false
	}
	ef, err := elf.Open(path)
	if err != nil {
		f.Refused = append(f.Refused, Refusal{Path: path, Reason: fmt.Sprintf("not an ELF file: %v", err)})
		return false
	}
	defer ef.Close()
	got, err := debuginfod.BuildID(ef)
	if err != nil {
		f.Refused = append(f.Refused, Refusal{Path: path, Reason: "no GNU build id"})
		return false
	}
	if !bytes.Equal(got, want) {
		f.Refused = append(f.Refused, Refusal{Path: path, Reason: fmt.Sprintf("build id %x, the dump's code id is %x", got, want)})
		return false
	}
	return true
}
