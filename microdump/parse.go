package microdump

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Markers and record keys. A key is searched anywhere in a line, so logcat
// prefixes ("W/google-breakpad( 3745): ") of any form are accepted.
const (
	breakpadTag = "google-breakpad"
	beginMarker = "-----BEGIN BREAKPAD MICRODUMP-----"
	endMarker   = "-----END BREAKPAD MICRODUMP-----"

	keyOS         = ": O "
	keyCPU        = ": C "
	keyCrash      = ": R "
	keyGPU        = ": G "
	keyModule     = ": M "
	keyStack      = ": S "
	keyStackFirst = ": S 0 " // the stack header: sp, start, length; informational
	gpuUnknown    = "UNKNOWN"
)

// Sizes of the raw CPU contexts a C line may carry (minidump_cpu_*.h).
const (
	sizeContextARM      = 368
	sizeContextARM64    = 912
	sizeContextARM64Old = 796
	sizeContextX86      = 716
	sizeContextMIPS     = 600
)

// MaxSize bounds the input Parse accepts; microdumps are logcat excerpts of a
// few hundred kilobytes.
const MaxSize = 64 << 20

// ErrNotMicrodump is wrapped by the error of Parse when the input holds no
// BEGIN marker line.
var ErrNotMicrodump = errors.New("microdump: no BEGIN BREAKPAD MICRODUMP line")

// FormatError reports a malformed record: the 1-based line number and what is wrong.
type FormatError struct {
	Line int
	Msg  string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("microdump: line %d: %s", e.Line, e.Msg)
}

// GPU is the G record: OpenGL version, vendor and renderer. All are empty
// when the record is absent or says UNKNOWN.
type GPU struct {
	Version, Vendor, Renderer string
}

// Dump is the content of one microdump.
type Dump struct {
	// OS is "Android" or "Linux" (O record id "A" or "L"), "" otherwise;
	// OSShort is "android" or "linux".
	OS, OSShort string
	OSVersion   string // the rest of the O record after the hardware architecture
	CPU         string // the architecture as written: "arm", "arm64", "x86", "mips", "mips64"
	HWArch      string // the hardware architecture, e.g. "armv8l" for 32-bit code on a 64-bit CPU
	CPUCount    int

	GPU GPU

	// CrashReason and CrashAddress come from the R record ("R <signal number>
	// <signal name> <address>"); CrashReason is the signal name.
	CrashReason  string
	CrashAddress uint64

	// Arch is the architecture of Context (ArchUnknown when there is none).
	Arch minidump.Arch
	// Context is the crashing thread's registers, nil when the C record is
	// absent, malformed, or of an architecture without a register table (mips).
	Context *minidump.Context
	// RawContext is the decoded C record, whatever its architecture.
	RawContext []byte

	// Stack is the dumped stack of the crashing thread.
	Stack Memory

	// Modules are the loaded modules in Breakpad's order (ascending end of
	// their lookup range), after its merge rules; see ModuleForAddress.
	Modules []Module

	// Warnings lists records that were ignored, as microdump_stackwalk
	// reports them on stderr ("Malformed CPU context ...").
	Warnings []string
}

// Module is an M record: "M <base> <file offset> <size> <id> <name>".
type Module struct {
	Base, Size uint64 // the mapping as written
	Offset     uint64 // file offset of the mapping
	ID         string // Breakpad debug identifier (also the code identifier)
	Name       string // file name (code file and debug file)

	// LookupBase and LookupEnd (inclusive) are the addresses attributed to
	// this module. They differ from Base and Base+Size-1 when Breakpad shrank
	// the range because it overlapped a module of lower address (Android only).
	LookupBase, LookupEnd uint64
}

// ShrinkDelta is how many bytes were cut from the start of the module's range.
func (m *Module) ShrinkDelta() uint64 { return m.LookupBase - m.Base }

// Memory is a contiguous region of captured memory.
type Memory struct {
	Base uint64
	Data []byte
}

// ReadMemory fills p from the region at addr, or fails when any byte is outside it.
func (m *Memory) ReadMemory(addr uint64, p []byte) error {
	n := uint64(len(p))
	if addr < m.Base || addr-m.Base > uint64(len(m.Data)) || uint64(len(m.Data))-(addr-m.Base) < n {
		return fmt.Errorf("microdump: %d bytes at %#x not in stack memory [%#x, %#x)", n, addr, m.Base, m.Base+uint64(len(m.Data)))
	}
	copy(p, m.Data[addr-m.Base:])
	return nil
}

// ModuleForAddress returns the index in d.Modules of the module whose lookup
// range holds addr, or -1.
func (d *Dump) ModuleForAddress(addr uint64) int {
	lo, hi := 0, len(d.Modules)
	for lo < hi { // first module whose range ends at or after addr
		mid := (lo + hi) / 2
		if d.Modules[mid].LookupEnd < addr {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(d.Modules) && d.Modules[lo].LookupBase <= addr {
		return lo
	}
	return -1
}

// Open reads and parses the named file.
func Open(path string) (*Dump, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("microdump: %s is larger than %d bytes", path, MaxSize)
	}
	return Parse(data)
}

// Parse reads the first microdump in data.
func Parse(data []byte) (*Dump, error) {
	if len(data) == 0 {
		return nil, errors.New("microdump: empty input")
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("microdump: input larger than %d bytes", MaxSize)
	}
	p := parser{d: &Dump{Arch: minidump.ArchUnknown}}
	p.modules.truncateUpper = false
	content := string(data)
	// One allocation for the module records: a large microdump is mostly
	// module lines, and growing the slice line by line copies it again
	// and again (docs/limits.md, a 64 MiB microdump).
	p.mods = make([]Module, 0, strings.Count(content, keyModule))
	if err := p.run(content); err != nil {
		return nil, err
	}
	return p.finish(), nil
}

type parser struct {
	d          *Dump
	arch       string // the O record's architecture, kept across O records like Breakpad's
	stackStart uint64
	stack      []byte
	modules    moduleMap
	mods       []Module
	found      bool
	// unreported counts, per kind, the warnings past the first few, and
	// keeps the first of them.
	unreported [numWarnKinds]struct {
		n     int
		first string
	}
	reported [numWarnKinds]int
}

// Kinds of warnings: each is reported maxWarnings times, then counted, so
// that a hostile microdump of 160k bad module lines gives a few lines of
// warnings, not 160k.
const (
	warnModule = iota
	warnContext
	numWarnKinds

	maxWarnings = 5
)

var warnSummaries = [numWarnKinds]string{"modules could not be stored", "CPU context records were ignored"}

func (p *parser) warn(kind int, msg string) {
	if p.reported[kind] < maxWarnings {
		p.reported[kind]++
		p.d.Warnings = append(p.d.Warnings, msg)
		return
	}
	u := &p.unreported[kind]
	if u.n == 0 {
		u.first = msg
	}
	u.n++
}

func (p *parser) run(content string) error {
	in := false
	lineNo := 0
	for len(content) > 0 {
		var line string
		if i := strings.IndexByte(content, '\n'); i >= 0 {
			line, content = content[:i], content[i+1:]
		} else {
			line, content = content, ""
		}
		lineNo++
		line = strings.TrimSuffix(line, "\r") // adb writes logcat with CRLF
		if !strings.Contains(line, breakpadTag) {
			continue
		}
		if strings.Contains(line, beginMarker) {
			in, p.found = true, true
			continue
		}
		if !in {
			continue
		}
		if strings.Contains(line, endMarker) {
			break
		}
		if err := p.record(line, lineNo); err != nil {
			return err
		}
	}
	if !p.found {
		return ErrNotMicrodump
	}
	return nil
}

// record handles one line inside the microdump. The order of the key tests
// matters for lines holding several keys, and is Breakpad's.
func (p *parser) record(line string, lineNo int) error {
	d := p.d
	if i := strings.Index(line, keyOS); i >= 0 {
		rest := line[i+len(keyOS):]
		toks, tail := fields(rest, 4)
		osID := tokenAt(toks, 0)
		if len(toks) > 1 {
			p.arch = toks[1]
		}
		d.CPU = p.arch
		d.CPUCount = int(uint8(hexValue(tokenAt(toks, 2))))
		if len(toks) > 3 {
			d.HWArch = toks[3]
		}
		d.OSVersion = ""
		if len(toks) == 4 && tail != "" {
			d.OSVersion = tail[1:] // drop the separating space
		}
		switch osID {
		case "L":
			d.OS, d.OSShort = "Linux", "linux"
		case "A":
			d.OS, d.OSShort = "Android", "android"
			// Android maps libraries so that address ranges of adjacent
			// modules can overlap; Breakpad shrinks instead of dropping.
			p.modules.truncateUpper = true
		}
		return nil
	}
	if i := strings.Index(line, keyStack); i >= 0 {
		if strings.Contains(line, keyStackFirst) {
			return nil
		}
		toks, _ := fields(line[i+len(keyStack):], 2)
		start := hexValue(tokenAt(toks, 0))
		chunk := hexBytes(tokenAt(toks, 1))
		if p.stackStart != 0 {
			if want := p.stackStart + uint64(len(p.stack)); start != want {
				return &FormatError{lineNo, fmt.Sprintf("stack chunk at %#x is not contiguous (expected %#x)", start, want)}
			}
		} else {
			p.stackStart = start
		}
		if uint64(len(p.stack))+uint64(len(chunk)) > ^uint64(0)-p.stackStart {
			return &FormatError{lineNo, "stack memory wraps around the address space"}
		}
		p.stack = append(p.stack, chunk...)
		return nil
	}
	if i := strings.Index(line, keyCPU); i >= 0 {
		p.context(hexBytes(line[i+len(keyCPU):]), lineNo)
		return nil
	}
	if i := strings.Index(line, keyCrash); i >= 0 {
		toks, _ := fields(line[i+len(keyCrash):], 3)
		if len(toks) > 1 {
			d.CrashReason = toks[1]
		}
		d.CrashAddress = hexValue(tokenAt(toks, 2))
		return nil
	}
	if i := strings.Index(line, keyGPU); i >= 0 {
		gpu := line[i+len(keyGPU):]
		if cString(gpu) != gpuUnknown {
			parts := strings.SplitN(gpu, "|", 4)
			d.GPU = GPU{tokenAt(parts, 0), tokenAt(parts, 1), tokenAt(parts, 2)}
		}
		return nil
	}
	if i := strings.Index(line, keyModule); i >= 0 {
		toks, _ := fields(line[i+len(keyModule):], 5)
		m := Module{
			Base:   hexValue(tokenAt(toks, 0)),
			Offset: hexValue(tokenAt(toks, 1)),
			Size:   hexValue(tokenAt(toks, 2)),
			ID:     tokenAt(toks, 3),
			Name:   tokenAt(toks, 4),
		}
		if p.modules.store(m.Base, m.Size, len(p.mods)) {
			p.mods = append(p.mods, m)
		} else {
			p.warn(warnModule, fmt.Sprintf("line %d: module %s could not be stored", lineNo, m.Name))
		}
	}
	return nil
}

// context decodes a C record for the architecture named by the O record.
// A record of the wrong size is ignored with a warning, as Breakpad does.
func (p *parser) context(raw []byte, lineNo int) {
	d := p.d
	want := 0
	switch cString(p.arch) {
	case "arm":
		want = sizeContextARM
	case "arm64":
		want = sizeContextARM64
		if len(raw) == sizeContextARM64Old {
			want = sizeContextARM64Old
		}
	case "x86":
		want = sizeContextX86
	case "mips", "mips64":
		want = sizeContextMIPS
	default:
		p.warn(warnContext, fmt.Sprintf("line %d: unsupported architecture: %s", lineNo, p.arch))
		return
	}
	if len(raw) != want {
		p.warn(warnContext, fmt.Sprintf("line %d: malformed CPU context: got %d bytes instead of %d", lineNo, len(raw), want))
		return
	}
	d.RawContext = raw
	switch cString(p.arch) {
	case "arm":
		d.Context, d.Arch = decodeARM(raw), minidump.ArchARM
	case "arm64":
		if want == sizeContextARM64Old {
			d.Context = decodeARM64Old(raw)
		} else {
			d.Context = decodeARM64(raw)
		}
		d.Arch = minidump.ArchARM64
	case "x86":
		d.Context, d.Arch = decodeX86(raw), minidump.ArchX86
	case "mips":
		d.Context, d.Arch = nil, minidump.ArchMIPS
	case "mips64":
		d.Context, d.Arch = nil, minidump.ArchMIPS64
	}
}

// finish builds the module list the processor sees. Breakpad's processor
// copies the parsed module map, re-inserting each module's original range in
// the map's order; with overlapping ranges the copy can resolve differently
// from the first map, so the copy is reproduced here.
func (p *parser) finish() *Dump {
	d := p.d
	for kind, u := range p.unreported {
		if u.n > 0 {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%d more %s, the first: %s", u.n, warnSummaries[kind], u.first))
		}
	}
	d.Stack = Memory{Base: p.stackStart, Data: p.stack}
	stored := p.modules.entries()
	if p.modules.truncateUpper {
		// Without truncation the stored ranges are the modules' own and
		// disjoint, so the copy would keep every one as it is.
		final := moduleMap{truncateUpper: true}
		for _, e := range stored {
			m := p.mods[e.mod]
			final.store(m.Base, m.Size, e.mod)
		}
		stored = final.entries()
	}
	d.Modules = make([]Module, 0, len(stored))
	for _, e := range stored {
		m := p.mods[e.mod]
		m.LookupBase, m.LookupEnd = e.base, e.high
		d.Modules = append(d.Modules, m)
	}
	return d
}

// fields splits s at C whitespace into at most n tokens, as successive
// "stream >> string" reads do, and returns what follows the last token read.
func fields(s string, n int) (toks []string, tail string) {
	i := 0
	for len(toks) < n {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i == len(s) {
			return toks, ""
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		toks = append(toks, s[i:j])
		i = j
	}
	return toks, s[i:]
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func tokenAt(toks []string, i int) string {
	if i < len(toks) {
		return toks[i]
	}
	return ""
}

// cString is s up to its first NUL, for comparisons Breakpad makes with strcmp.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// hexValue reads a hexadecimal number the way "istream >> std::hex" does:
// leading whitespace, an optional sign and 0x prefix, then hex digits up to
// the first other character. No digits gives 0; overflow gives the maximum;
// a minus sign negates modulo 2^64.
func hexValue(s string) uint64 {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') {
		i += 2
	}
	var v uint64
	overflow := false
	for ; i < len(s); i++ {
		d, ok := hexDigit(s[i])
		if !ok {
			break
		}
		if v > (^uint64(0))>>4 {
			overflow = true
		}
		v = v<<4 | uint64(d)
	}
	if overflow {
		return ^uint64(0)
	}
	if neg {
		v = -v
	}
	return v
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// hexBytes decodes pairs of hex digits. Like Breakpad, each two-character
// group is read as a number truncated to a byte, so a bad pair gives 0 rather
// than an error, and an odd last digit is a byte of its own.
func hexBytes(s string) []byte {
	out := make([]byte, 0, (len(s)+1)/2)
	for i := 0; i < len(s); i += 2 {
		if i+1 < len(s) {
			hi, ok1 := hexDigit(s[i])
			lo, ok2 := hexDigit(s[i+1])
			if ok1 && ok2 { // the common case, without the general reader
				out = append(out, hi<<4|lo)
				continue
			}
			out = append(out, byte(hexValue(s[i:i+2])))
			continue
		}
		out = append(out, byte(hexValue(s[i:])))
	}
	return out
}
