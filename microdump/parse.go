package microdump

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"unsafe"

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

// Parse reads the first microdump in data. data is not kept: the strings
// of the Dump are copies.
func Parse(data []byte) (*Dump, error) {
	if len(data) == 0 {
		return nil, errors.New("microdump: empty input")
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("microdump: input larger than %d bytes", MaxSize)
	}
	p := parser{d: &Dump{Arch: minidump.ArchUnknown}, upperFrom: -1}
	// One allocation for the module records: a large microdump is mostly
	// module lines, and growing the slice line by line copies it again
	// and again (docs/limits.md, a 64 MiB microdump).
	n := bytes.Count(data, []byte(keyModule))
	p.mods = make([]Module, 0, n)
	p.modLines = make([]int32, 0, n)
	if err := p.run(data); err != nil {
		return nil, err
	}
	return p.finish(), nil
}

type parser struct {
	d          *Dump
	arch       string // the O record's architecture, kept across O records like Breakpad's
	stackStart uint64
	stack      []byte
	mods       []Module // the M records in input order
	modLines   []int32  // the line of each M record
	// upperFrom is the first module read after an Android O record, from
	// which on Breakpad stores modules with its truncate-upper rule; -1
	// when there is none.
	upperFrom int
	found     bool
	strs      arena
	// reported keeps, per kind, the first few warnings and their lines;
	// unreported counts the rest and keeps the first of them.
	reported   [numWarnKinds][]lineWarning
	unreported [numWarnKinds]struct {
		n     int
		first string
	}
}

type lineWarning struct {
	line int
	msg  string
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

// warn records a warning of the given line. Module warnings are made after
// the whole input is read (storeModules), so the warnings are put back in
// line order in finish.
func (p *parser) warn(kind, line int, msg string) {
	if len(p.reported[kind]) < maxWarnings {
		p.reported[kind] = append(p.reported[kind], lineWarning{line, msg})
		return
	}
	u := &p.unreported[kind]
	if u.n == 0 {
		u.first = msg
	}
	u.n++
}

func (p *parser) run(content []byte) error {
	in := false
	lineNo := 0
	for len(content) > 0 {
		var line []byte
		if i := bytes.IndexByte(content, '\n'); i >= 0 {
			line, content = content[:i], content[i+1:]
		} else {
			line, content = content, nil
		}
		lineNo++
		line = bytes.TrimSuffix(line, []byte("\r")) // adb writes logcat with CRLF
		if !bytes.Contains(line, []byte(breakpadTag)) {
			continue
		}
		if bytes.Contains(line, []byte(beginMarker)) {
			in, p.found = true, true
			continue
		}
		if !in {
			continue
		}
		if bytes.Contains(line, []byte(endMarker)) {
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
func (p *parser) record(line []byte, lineNo int) error {
	d := p.d
	if i := bytes.Index(line, []byte(keyOS)); i >= 0 {
		p.osRecord(line[i+len(keyOS):])
		return nil
	}
	if i := bytes.Index(line, []byte(keyStack)); i >= 0 {
		if bytes.Contains(line, []byte(keyStackFirst)) {
			return nil
		}
		return p.stackRecord(line[i+len(keyStack):], lineNo)
	}
	if i := bytes.Index(line, []byte(keyCPU)); i >= 0 {
		p.context(hexBytes(line[i+len(keyCPU):]), lineNo)
		return nil
	}
	if i := bytes.Index(line, []byte(keyCrash)); i >= 0 {
		var toks [3][]byte
		fields(line[i+len(keyCrash):], toks[:])
		if toks[1] != nil {
			d.CrashReason = string(toks[1])
		}
		d.CrashAddress = hexValue(toks[2])
		return nil
	}
	if i := bytes.Index(line, []byte(keyGPU)); i >= 0 {
		gpu := string(line[i+len(keyGPU):])
		if cString(gpu) != gpuUnknown {
			parts := strings.SplitN(gpu, "|", 4)
			d.GPU = GPU{tokenAt(parts, 0), tokenAt(parts, 1), tokenAt(parts, 2)}
		}
		return nil
	}
	if i := bytes.Index(line, []byte(keyModule)); i >= 0 {
		var toks [5][]byte
		fields(line[i+len(keyModule):], toks[:])
		p.mods = append(p.mods, Module{
			Base:   hexValue(toks[0]),
			Offset: hexValue(toks[1]),
			Size:   hexValue(toks[2]),
			ID:     p.strs.string(toks[3]),
			Name:   p.strs.string(toks[4]),
		})
		p.modLines = append(p.modLines, int32(min(lineNo, math.MaxInt32)))
	}
	return nil
}

// osRecord reads an O record: "O <os> <arch> <cpu count> <hw arch> <version>".
func (p *parser) osRecord(rest []byte) {
	d := p.d
	var toks [4][]byte
	n, tail := fields(rest, toks[:])
	osID := string(toks[0])
	if n > 1 {
		p.arch = string(toks[1])
	}
	d.CPU = p.arch
	d.CPUCount = int(uint8(hexValue(toks[2])))
	if n > 3 {
		d.HWArch = string(toks[3])
	}
	d.OSVersion = ""
	if n == 4 && len(tail) > 0 {
		d.OSVersion = string(tail[1:]) // drop the separating space
	}
	switch osID {
	case "L":
		d.OS, d.OSShort = "Linux", "linux"
	case "A":
		d.OS, d.OSShort = "Android", "android"
		// Android maps libraries so that address ranges of adjacent
		// modules can overlap; Breakpad shrinks instead of dropping,
		// for the modules stored from here on.
		if p.upperFrom < 0 {
			p.upperFrom = len(p.mods)
		}
	}
}

// stackRecord appends an S record's chunk to the stack.
func (p *parser) stackRecord(rest []byte, lineNo int) error {
	var toks [2][]byte
	fields(rest, toks[:])
	start := hexValue(toks[0])
	chunk := hexBytes(toks[1])
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
		p.warn(warnContext, lineNo, fmt.Sprintf("line %d: unsupported architecture: %s", lineNo, p.arch))
		return
	}
	if len(raw) != want {
		p.warn(warnContext, lineNo, fmt.Sprintf("line %d: malformed CPU context: got %d bytes instead of %d", lineNo, len(raw), want))
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

// finish builds the Dump's stack, module list and warnings.
func (p *parser) finish() *Dump {
	d := p.d
	d.Stack = Memory{Base: p.stackStart, Data: p.stack}
	d.Modules = p.storeModules()
	// The reported warnings in line order, as they were met; then the
	// count of each kind's others.
	var warnings []lineWarning
	for _, ws := range p.reported {
		warnings = append(warnings, ws...)
	}
	slices.SortStableFunc(warnings, func(a, b lineWarning) int { return cmp.Compare(a.line, b.line) })
	for _, w := range warnings {
		d.Warnings = append(d.Warnings, w.msg)
	}
	for kind, u := range p.unreported {
		if u.n > 0 {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%d more %s, the first: %s", u.n, warnSummaries[kind], u.first))
		}
	}
	return d
}

// fields splits s at C whitespace into at most len(toks) tokens, as
// successive "stream >> string" reads do, and returns how many it read and
// what follows the last token read. The tokens not read stay nil.
func fields(s []byte, toks [][]byte) (n int, tail []byte) {
	i := 0
	for n < len(toks) {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i == len(s) {
			return n, nil
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		toks[n] = s[i:j]
		n++
		i = j
	}
	return n, s[i:]
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
func hexValue[T string | []byte](s T) uint64 {
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
func hexBytes[T string | []byte](s T) []byte {
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

// arena holds the bytes of the strings a Dump keeps from its input (module
// ids and names): one allocation per 64 KiB of them rather than two per
// module line, and the input is not kept (a copy of it as one string was
// held while any of its substrings lived).
type arena struct{ buf []byte }

func (a *arena) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > cap(a.buf)-len(a.buf) {
		a.buf = make([]byte, 0, max(len(b), 64<<10))
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	// The bytes are never written again: later strings are appended
	// past them, or into a new buffer.
	return unsafe.String(&a.buf[start], len(b))
}
