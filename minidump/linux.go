package minidump

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// rawStream returns a copy of a stream's bytes.
func (f *File) rawStream(t StreamType) ([]byte, error) {
	b, _, err := f.stream(t)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil
}

// CPUInfoText returns the Linux /proc/cpuinfo text (MD_LINUX_CPU_INFO).
func (f *File) CPUInfoText() ([]byte, error) { return f.rawStream(StreamLinuxCPUInfo) }

// ProcStatus returns /proc/<pid>/status (MD_LINUX_PROC_STATUS).
func (f *File) ProcStatus() ([]byte, error) { return f.rawStream(StreamLinuxProcStatus) }

// Maps returns /proc/<pid>/maps (MD_LINUX_MAPS).
func (f *File) Maps() ([]byte, error) { return f.rawStream(StreamLinuxMaps) }

// CmdLine returns the NUL-separated command line (MD_LINUX_CMD_LINE), split.
func (f *File) CmdLine() ([]string, error) {
	b, err := f.rawStream(StreamLinuxCmdLine)
	if err != nil {
		return nil, err
	}
	return splitNUL(b), nil
}

// Environ returns the NUL-separated environment (MD_LINUX_ENVIRON), split.
func (f *File) Environ() ([]string, error) {
	b, err := f.rawStream(StreamLinuxEnviron)
	if err != nil {
		return nil, err
	}
	return splitNUL(b), nil
}

func splitNUL(b []byte) []string {
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return nil
	}
	return strings.Split(string(b), "\x00")
}

// LSBRelease is /etc/lsb-release (or os-release) as captured by Breakpad.
type LSBRelease struct {
	Raw    []byte
	Fields map[string]string // KEY=value lines, quotes removed
}

// LSBRelease parses MD_LINUX_LSB_RELEASE.
func (f *File) LSBRelease() (*LSBRelease, error) {
	b, err := f.rawStream(StreamLinuxLSBRelease)
	if err != nil {
		return nil, err
	}
	l := &LSBRelease{Raw: b, Fields: map[string]string{}}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || k == "" {
			continue
		}
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		} else {
			v = strings.Trim(v, `"'`)
		}
		l.Fields[k] = v
	}
	return l, nil
}

// AuxvEntry is one auxiliary vector entry.
type AuxvEntry struct{ Type, Value uint64 }

// Auxv parses MD_LINUX_AUXV; the word size follows the CPU (4 for 32-bit).
func (f *File) Auxv() ([]AuxvEntry, error) {
	b, s, err := f.stream(StreamLinuxAuxv)
	if err != nil {
		return nil, err
	}
	word := 8
	if c := (Context{Arch: f.sysArch()}); c.Arch != ArchUnknown && c.WordSize() == 4 {
		word = 4
	}
	if len(b)%(2*word) != 0 {
		err = &FormatError{s.Off, s.Name, fmt.Sprintf("size %d not a multiple of %d", len(b), 2*word)}
	}
	var out []AuxvEntry
	if n := len(b) / (2 * word); n > 0 {
		out = make([]AuxvEntry, 0, n)
	}
	for i := 0; i+2*word <= len(b); i += 2 * word {
		out = append(out, AuxvEntry{readWord(b[i:], word), readWord(b[i+word:], word)})
	}
	return out, err
}

func readWord(b []byte, word int) uint64 {
	if word == 4 {
		return uint64(le.Uint32(b))
	}
	return le.Uint64(b)
}

// LinkMap is one entry of the dynamic linker's link_map list.
type LinkMap struct {
	Addr uint64 // load bias
	Name string
	LD   uint64 // address of the module's dynamic section
}

// DSODebug is MDRawDebug{32,64}: the r_debug structure and the link maps.
type DSODebug struct {
	Version uint32
	Map     uint64 // file offset (RVA) of the link map array
	Brk     uint64
	LDBase  uint64
	Dynamic uint64
	Maps    []LinkMap
}

// DSODebug parses MD_LINUX_DSO_DEBUG.
func (f *File) DSODebug() (*DSODebug, error) {
	b, s, err := f.stream(StreamLinuxDSODebug)
	if err != nil {
		return nil, err
	}
	word := 8
	if c := (Context{Arch: f.sysArch()}); c.Arch != ArchUnknown && c.WordSize() == 4 {
		word = 4
	}
	// MDRawDebug32: version, map RVA, dso_count, brk, ldbase, dynamic (all u32).
	// MDRawDebug64: version, map RVA, dso_count, pad, then u64 brk, ldbase, dynamic.
	hdr, wordsAt, entry := 24, 12, int64(12)
	if word == 8 {
		hdr, wordsAt, entry = 40, 16, 24
	}
	if len(b) < hdr {
		return nil, &FormatError{s.Off, s.Name, fmt.Sprintf("size %d, want at least %d", len(b), hdr)}
	}
	d := &DSODebug{
		Version: le.Uint32(b),
		Map:     uint64(le.Uint32(b[4:])),
		Brk:     readWord(b[wordsAt:], word),
		LDBase:  readWord(b[wordsAt+word:], word),
		Dynamic: readWord(b[wordsAt+2*word:], word),
	}
	n := int64(le.Uint32(b[8:]))
	mapRVA := d.Map
	if mapRVA > uint64(f.size) || n*entry > f.size-int64(mapRVA) {
		return d, &FormatError{s.Off, s.Name, fmt.Sprintf("%d link maps at %#x beyond file", n, mapRVA)}
	}
	mb, err := f.bytesAt(int64(mapRVA), n*entry, s.Name)
	if err != nil {
		return d, err
	}
	// MDRawLinkMap32: addr, name RVA, ld; MDRawLinkMap64: addr, name RVA, pad, ld.
	ldAt := 8
	if word == 8 {
		ldAt = 16
	}
	for i := int64(0); i < n; i++ {
		e := mb[i*entry:]
		lm := LinkMap{Addr: readWord(e, word), LD: readWord(e[ldAt:], word)}
		if nameRVA := le.Uint32(e[word:]); nameRVA != 0 {
			lm.Name, _ = f.readString(nameRVA, s.Name)
		}
		d.Maps = append(d.Maps, lm)
	}
	return d, nil
}
