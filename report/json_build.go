package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/minidump-stackwalk/minidump-stackwalk/crashinfo"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// JSONInput is what BuildJSON needs: the dump for its dump-level facts and
// the walked stacks for the frames. It is filled by the command line from the
// processor's result, which keeps this package free of processing decisions.
type JSONInput struct {
	// Dump is the opened minidump; nil when it could not be read at all.
	Dump *minidump.File

	// Status is the processing status: "OK" or one of Breakpad's /
	// Socorro's error names ("ERROR_NO_MINIDUMP_HEADER",
	// "ERROR_NO_THREAD_LIST", ...). Empty means "OK".
	Status string

	// Stacks maps a thread's index in Dump.Threads() to its walked frames
	// (innermost first, inlined frames before their physical frame, as
	// walker.Stack holds them). Threads without an entry (such as the
	// thread that wrote the dump, which Breakpad does not walk) are listed
	// with no frames, as rust-minidump does.
	Stacks map[int][]*walker.Frame

	// RequestingThread is the index in Dump.Threads() of the crashed (or
	// dump-requesting) thread, -1 when none.
	RequestingThread int

	// Symbols gives the symbol status of each module by its index in
	// Dump.Modules(); missing entries mean "not tried".
	Symbols map[int]walker.SymbolStatus

	// HaveSymbolPaths tells whether any symbol path was given. Without one,
	// rust-minidump reports no module as missing symbols; we do the same.
	HaveSymbolPaths bool

	// Errors are problems met while processing, reported in x_errors.
	Errors []error

	// CertSubjects maps a module's file name (base name of its code file) to
	// the subject of the certificate that signed it, from rust-minidump's
	// --evil-json side channel; nil when none was given.
	CertSubjects map[string]string

	// Process describes the process when there is no minidump (Dump nil),
	// as for an Android microdump: the report is then built from it.
	Process *JSONProcess

	// Raw reads the dump file's bytes; optional. It serves the streams the
	// minidump package does not decode (Mozilla's soft errors and macOS
	// boot arguments), located through Dump.Streams().
	Raw io.ReaderAt
}

// JSONProcess is what the processor found in a dump that is not a
// minidump: system, crash, modules and threads, in the processor's words.
type JSONProcess struct {
	OS, OSVersion, CPU, CPUInfo string
	CPUCount                    int
	Arch                        minidump.Arch
	Crashed                     bool
	CrashReason                 string
	CrashAddress                uint64
	Modules                     []*walker.Module
	// Threads are the thread ids, in order; Stacks and RequestingThread
	// index this list.
	Threads []uint32
}

// BuildJSON builds the JSON report. It never fails: whatever part of the dump
// cannot be read is reported as null (and the reason in x_errors).
func BuildJSON(in *JSONInput) *JSONReport {
	r := &JSONReport{
		Status:          in.Status,
		Modules:         []JSONModule{},
		Threads:         []JSONThread{},
		UnloadedModules: []JSONUnloadedModule{},
	}
	if r.Status == "" {
		r.Status = "OK"
	}
	r.ModulesContainsCertInfo = len(in.CertSubjects) > 0
	for _, err := range in.Errors {
		if isBroken(err) {
			r.Errors = append(r.Errors, err.Error())
		}
	}
	f := in.Dump
	if f == nil {
		r.SystemInfo.OS = "unknown"
		r.SystemInfo.CPUArch = "unknown"
		if in.Process != nil {
			b := &jsonBuilder{in: in, r: r, hexWidth: 16}
			b.buildFromProcess(in.Process)
		}
		return r
	}
	b := &jsonBuilder{in: in, r: r, f: f}
	b.build()
	return r
}

type jsonBuilder struct {
	in *JSONInput
	r  *JSONReport
	f  *minidump.File

	si       *minidump.SystemInfo
	hexWidth int // digits of an address: 8 on 32-bit CPUs, 16 otherwise
	modules  []minidump.Module
	unloaded []minidump.UnloadedModule
}

func (b *jsonBuilder) note(err error) {
	if err != nil {
		b.r.Errors = append(b.r.Errors, err.Error())
	}
}

// hex formats an address or offset as rust-minidump does: zero-padded to the
// CPU's pointer width.
func (b *jsonBuilder) hex(v uint64) string {
	return fmt.Sprintf("0x%0*x", b.hexWidth, v)
}

func (b *jsonBuilder) hexPtr(v uint64) *string {
	s := b.hex(v)
	return &s
}

func strPtr(s string) *string { return &s }

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (b *jsonBuilder) build() {
	var err error
	b.hexWidth = 16
	b.si, err = b.f.SystemInfo()
	if isBroken(err) {
		b.note(err)
	}
	b.buildSystemInfo()

	b.modules, err = b.f.Modules()
	if isBroken(err) {
		b.note(err)
	}
	b.unloaded, err = b.f.UnloadedModules()
	if isBroken(err) {
		b.note(err)
	}
	b.buildModules()
	b.buildThreads()
	b.buildCrashInfo()
	b.buildProcessFacts()
	b.buildStreamFacts()
}

// isBroken tells a real read error from "the stream is not present".
func isBroken(err error) bool {
	return err != nil && !errors.Is(err, minidump.ErrNoStream)
}

func (b *jsonBuilder) buildSystemInfo() {
	s := &b.r.SystemInfo
	if b.si == nil {
		s.OS = "unknown"
		s.CPUArch = "unknown"
		return
	}
	ctx := minidump.NewContext(b.si.Arch)
	if ctx.WordSize() == 4 {
		b.hexWidth = 8
	}
	s.OS = b.si.OS()
	s.OSVer = strPtr(osVersion(b.si))
	s.CPUArch = b.si.CPU()
	s.CPUInfo = nonEmpty(b.si.CPUInfo())
	s.CPUCount = b.si.CPUCount()
}

// osVersion is rust-minidump's os_ver: "major.minor.build CSD" ("5.1.2600
// Service Pack 2", "11.6.7 20G630"; no trailing space when the CSD string is
// empty). On Linux and Android the CSD string holds uname's fields and the
// result is "release version" without the machine name: Breakpad's older
// Linux writer stores "Linux <release> <version> <machine>" with version
// 0.0.0 (rust-minidump's linux-mini.dmp: "4.9.60-linuxkit-aufs #1 SMP ..."),
// the newer one stores the release's numbers in major.minor.build and the
// rest of the release, the version and the machine in the CSD string.
func osVersion(si *minidump.SystemInfo) string {
	numbers := fmt.Sprintf("%d.%d.%d", si.MajorVersion, si.MinorVersion, si.BuildNumber)
	csd := strings.TrimSpace(si.CSDVersion)
	if !si.HasCSDVersion || csd == "" {
		return numbers
	}
	if si.Platform == minidump.PlatformLinux || si.Platform == minidump.PlatformAndroid {
		words := strings.Fields(csd)
		switch {
		case words[0] == "Linux" && len(words) >= 3:
			return strings.Join(words[1:len(words)-1], " ")
		case len(words) >= 2 && (strings.HasPrefix(words[0], "-") || strings.HasPrefix(words[0], "+")):
			return numbers + words[0] + " " + strings.Join(words[1:len(words)-1], " ")
		}
	}
	return numbers + " " + csd
}

func (b *jsonBuilder) platform() minidump.Platform {
	if b.si == nil {
		return 0xffffffff
	}
	return b.si.Platform
}

// codeID is rust-minidump's code_id: Breakpad's code identifier in lower
// case (Windows "TIMESTAMPsize", ELF build id); for macOS, whose Breakpad
// code identifier is the placeholder "id", the Mach-O UUID taken from the
// debug identifier.
func (b *jsonBuilder) codeID(m *minidump.Module) *string {
	id := m.CodeID
	switch b.platform() {
	case minidump.PlatformMacOSX, minidump.PlatformIOS:
		if len(m.DebugID) >= 32 {
			return strPtr(strings.ToLower(m.DebugID[:32]))
		}
		return nil
	}
	if id == "" || id == "id" {
		return nil
	}
	return strPtr(strings.ToLower(id))
}

func (b *jsonBuilder) buildModules() {
	for i := range b.modules {
		m := &b.modules[i]
		jm := JSONModule{
			BaseAddr:  b.hex(m.Base),
			CodeID:    b.codeID(m),
			DebugFile: nonEmpty(fileBase(m.DebugFile)),
			DebugID:   nonEmpty(m.DebugID),
			EndAddr:   b.hex(m.Base + uint64(m.Size)),
			Filename:  fileBase(m.Name),
			Version:   nonEmpty(m.Version),
		}
		b.addModule(i, jm)
	}
	// Breakpad's and rust-minidump's main module is the first listed;
	// rust-minidump prints 0 even when there are no modules.
	zero := 0
	b.r.MainModule = &zero
	for _, u := range b.unloaded {
		b.r.UnloadedModules = append(b.r.UnloadedModules, JSONUnloadedModule{
			BaseAddr:    b.hex(u.Base),
			CodeID:      fmt.Sprintf("%08x%x", u.TimeDateStamp, u.Size),
			EndAddr:     b.hex(u.Base + uint64(u.Size)),
			Filename:    fileBase(u.Name),
			CertSubject: b.certSubject(fileBase(u.Name)),
		})
	}
}

// certSubject returns the certificate subject of the module file name.
func (b *jsonBuilder) certSubject(filename string) *string {
	if subject, ok := b.in.CertSubjects[filename]; ok {
		return &subject
	}
	return nil
}

// ParseEvilJSON reads rust-minidump's --evil-json side channel: a JSON
// object whose "ModuleSignatureInfo" member is a string holding a JSON
// object that maps a certificate subject to the file names of the modules
// it signed. It returns the module-to-subject map.
func ParseEvilJSON(data []byte) (map[string]string, error) {
	var outer struct {
		ModuleSignatureInfo *string
	}
	if err := json.Unmarshal(data, &outer); err != nil {
		return nil, fmt.Errorf("evil json: %w", err)
	}
	subjects := map[string]string{}
	if outer.ModuleSignatureInfo == nil {
		return subjects, nil
	}
	var signers map[string][]string
	if err := json.Unmarshal([]byte(*outer.ModuleSignatureInfo), &signers); err != nil {
		return nil, fmt.Errorf("evil json: ModuleSignatureInfo: %w", err)
	}
	// Sorted subjects make the result independent of map order when a
	// module is listed under two subjects: the first in sort order wins.
	names := make([]string, 0, len(signers))
	for subject := range signers {
		names = append(names, subject)
	}
	sort.Strings(names)
	for _, subject := range names {
		for _, module := range signers[subject] {
			if _, dup := subjects[module]; !dup {
				subjects[module] = subject
			}
		}
	}
	return subjects, nil
}

// addModule appends jm, module i, to "modules" with its symbol status and
// certificate subject.
func (b *jsonBuilder) addModule(i int, jm JSONModule) {
	b.setSymbolFlags(&jm, i)
	jm.CertSubject = b.certSubject(jm.Filename)
	b.r.Modules = append(b.r.Modules, jm)
}

// setSymbolFlags sets the symbol status of module i.
func (b *jsonBuilder) setSymbolFlags(jm *JSONModule, i int) {
	switch b.in.Symbols[i] {
	case walker.SymbolsLoaded:
		jm.LoadedSymbols = true
	case walker.SymbolsMissing:
		jm.MissingSymbols = b.in.HaveSymbolPaths
	case walker.SymbolsCorrupt:
		jm.CorruptSymbols = true
	}
}

// addThread appends thread i with its frames, and sets crashing_thread when
// i is the requesting thread.
func (b *jsonBuilder) addThread(i int, jt JSONThread) {
	jt.Frames = b.frames(b.in.Stacks[i])
	jt.FrameCount = len(jt.Frames)
	b.r.Threads = append(b.r.Threads, jt)
	if i == b.in.RequestingThread {
		ct := jt
		idx := i
		ct.ThreadsIndex = &idx
		ct.Frames = b.frames(b.in.Stacks[i])
		if len(ct.Frames) > 0 {
			ct.Frames[0].Registers = b.registers(b.in.Stacks[i])
		}
		b.r.CrashingThread = &ct
	}
}

func (b *jsonBuilder) buildThreads() {
	threads, err := b.f.Threads()
	if isBroken(err) {
		b.note(err)
	}
	names, err := b.f.ThreadNames()
	if isBroken(err) {
		b.note(err)
	}
	b.r.ThreadCount = len(threads)
	mem, _ := b.f.Memory() // a partial list still serves
	for i := range threads {
		t := &threads[i]
		jt := JSONThread{ThreadID: t.ID, LastErrorValue: b.lastError(t, mem)}
		if name, ok := names[t.ID]; ok {
			jt.ThreadName = strPtr(name)
		}
		b.addThread(i, jt)
	}
}

// frames folds inlined frames into the physical frame that follows them.
func (b *jsonBuilder) frames(stack []*walker.Frame) []JSONFrame {
	out := []JSONFrame{}
	var inlines []JSONInline
	for _, fr := range stack {
		if fr == nil {
			continue
		}
		if fr.Trust == walker.TrustInline {
			in := JSONInline{File: nonEmpty(fr.SourceFile), Function: fr.Function}
			if fr.SourceFile != "" {
				line := fr.SourceLine
				in.Line = &line
			}
			inlines = append(inlines, in)
			continue
		}
		jf := JSONFrame{
			Frame:          len(out),
			Offset:         b.hex(fr.Instruction),
			Trust:          fr.Trust.ShortName(),
			MissingSymbols: fr.Function == "",
			Inlines:        inlines,
		}
		inlines = nil
		// Breakpad names a frame in an unloaded module after it;
		// rust-minidump's module field holds loaded modules only and lists
		// the unloaded ones apart.
		if fr.Module != nil && !fr.Module.Unloaded {
			jf.Module = strPtr(fileBase(fr.Module.CodeFile))
			jf.ModuleOffset = b.hexPtr(fr.Instruction - fr.Module.Base)
		} else {
			jf.UnloadedModules = b.unloadedAt(fr.Instruction)
		}
		if fr.Function != "" {
			jf.Function = strPtr(fr.Function)
			jf.FunctionOffset = b.hexPtr(fr.Instruction - fr.FunctionBase)
		}
		if fr.SourceFile != "" {
			jf.File = strPtr(fr.SourceFile)
			line := fr.SourceLine
			jf.Line = &line
		}
		out = append(out, jf)
	}
	return out
}

// unloadedAt lists the unloaded modules covering addr, by name, with the
// offset of addr in each instance (sorted, deduplicated), as rust-minidump
// reports them for a frame in no loaded module.
func (b *jsonBuilder) unloadedAt(addr uint64) []JSONFrameUnloadedModule {
	offsets := map[string]map[uint64]bool{}
	for _, u := range b.unloaded {
		if addr >= u.Base && addr-u.Base < uint64(u.Size) {
			name := fileBase(u.Name)
			if offsets[name] == nil {
				offsets[name] = map[uint64]bool{}
			}
			offsets[name][addr-u.Base] = true
		}
	}
	if len(offsets) == 0 {
		return nil
	}
	var names []string
	for n := range offsets {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []JSONFrameUnloadedModule
	for _, n := range names {
		var offs []uint64
		for o := range offsets[n] {
			offs = append(offs, o)
		}
		sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
		m := JSONFrameUnloadedModule{Module: n}
		for _, o := range offs {
			m.Offsets = append(m.Offsets, b.hex(o))
		}
		out = append(out, m)
	}
	return out
}

// jsonRegisterName maps Breakpad's register names to rust-minidump's where
// they differ.
var jsonRegisterName = map[string]string{"efl": "eflags"}

// registers lists the valid registers of the first physical frame.
func (b *jsonBuilder) registers(stack []*walker.Frame) map[string]string {
	for _, fr := range stack {
		if fr == nil || fr.Trust == walker.TrustInline {
			continue
		}
		regs := map[string]string{}
		ctx := fr.Context
		for i, name := range minidump.RegisterNames(ctx.Arch) {
			v, ok := ctx.Index(i)
			if !ok {
				continue
			}
			if n, ok := jsonRegisterName[name]; ok {
				name = n
			}
			regs[name] = b.hex(v)
		}
		if len(regs) == 0 {
			return nil
		}
		return regs
	}
	return nil
}

func (b *jsonBuilder) buildCrashInfo() {
	c := &b.r.CrashInfo
	if a := b.f.Assertion(); a != "" {
		c.Assertion = strPtr(a)
	}
	ex, err := b.f.Exception()
	if isBroken(err) {
		b.note(err)
	}
	if ex == nil {
		return
	}
	c.Type = strPtr(rustCrashType(minidump.CrashReason(b.si, ex)))
	c.Address = b.hexPtr(minidump.CrashAddress(b.si, ex))
	b.addCrashAnalysis(c, crashinfo.AnalyzeDump(b.f))
	c.CrashInconsistencies = []string{}
	if b.in.RequestingThread >= 0 {
		idx := b.in.RequestingThread
		c.CrashingThread = &idx
	}
}

// rustCrashType turns Breakpad's crash reason into rust-minidump's spelling
// where they differ: Linux signal reasons ("SIGSEGV /SEGV_MAPERR" becomes
// "SIGSEGV / SEGV_MAPERR"; an unknown sub-code, which Breakpad prints in hex,
// is dropped: "SIGSEGV /0x00000000" becomes "SIGSEGV").
func rustCrashType(reason string) string {
	sig, code, ok := strings.Cut(reason, " /")
	if !ok || !strings.HasPrefix(sig, "SIG") {
		return reason
	}
	code = strings.TrimSpace(code)
	if code == "" || strings.HasPrefix(code, "0x") {
		return sig
	}
	return sig + " / " + code
}

func (b *jsonBuilder) buildProcessFacts() {
	f := b.f
	if mi, err := f.MiscInfo(); err == nil && mi.Flags1&minidump.MiscInfoProcessID != 0 {
		pid := mi.ProcessID
		b.r.PID = &pid
	} else if status, err := f.ProcStatus(); err == nil {
		if pid, ok := procStatusPID(status); ok {
			b.r.PID = &pid
		}
	}
	if up, ok := f.ProcessUptime(); ok {
		b.r.ProcessUptime = &up
	}
	if lsb, err := f.LSBRelease(); err == nil {
		b.r.LSBRelease = lsbRelease(lsb)
	}
	if maps, err := f.Maps(); err == nil {
		n := countLines(maps)
		b.r.LinuxMemoryMapCount = &n
	}
	if recs, err := f.MacCrashInfo(); err == nil && len(recs) > 0 {
		b.r.MacCrashInfo = b.macCrashInfo(recs)
	}
	if data, ok := b.rawStream(streamMozSoftErrors); ok {
		b.r.SoftErrors = rawJSON(data)
	}
	if data, ok := b.rawStream(streamMozMacBootArgs); ok {
		if args, ok := b.macBootArgs(data); ok {
			b.r.MacBootArgs = args
		}
	}
}

// Mozilla's stream types that the minidump package does not decode.
const (
	streamMozMacBootArgs minidump.StreamType = 0x4d7a0002
	streamMozSoftErrors  minidump.StreamType = 0x4d7a0004
)

// maxRawStream bounds what we read of one such stream.
const maxRawStream = 1 << 20

// rawStream returns the bytes of the first stream of type t.
func (b *jsonBuilder) rawStream(t minidump.StreamType) ([]byte, bool) {
	if b.in.Raw == nil {
		return nil, false
	}
	for _, s := range b.f.Streams() {
		if s.Type != t {
			continue
		}
		if s.Size > maxRawStream || s.Off < 0 || s.Off+int64(s.Size) > b.f.Size() {
			b.note(fmt.Errorf("stream %s at %#x: size %d out of bounds", s.Name, s.Off, s.Size))
			return nil, false
		}
		data := make([]byte, s.Size)
		if _, err := b.in.Raw.ReadAt(data, s.Off); err != nil {
			b.note(fmt.Errorf("stream %s at %#x: %w", s.Name, s.Off, err))
			return nil, false
		}
		return data, true
	}
	return nil, false
}

// macBootArgs decodes MDRawMacBootargs: stream_type u32, then the RVA of a
// MINIDUMP_STRING (UTF-16) holding the kernel boot arguments.
func (b *jsonBuilder) macBootArgs(data []byte) (string, bool) {
	if len(data) < 8 {
		return "", false
	}
	rva := int64(le32(data[4:]))
	var hdr [4]byte
	if rva+4 > b.f.Size() {
		return "", false
	}
	if _, err := b.in.Raw.ReadAt(hdr[:], rva); err != nil {
		return "", false
	}
	n := int64(le32(hdr[:]))
	if n%2 != 0 || n > maxRawStream || rva+4+n > b.f.Size() {
		return "", false
	}
	buf := make([]byte, n)
	if _, err := b.in.Raw.ReadAt(buf, rva+4); err != nil {
		return "", false
	}
	u := make([]uint16, n/2)
	for i := range u {
		u[i] = uint16(buf[2*i]) | uint16(buf[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func procStatusPID(status []byte) (uint32, bool) {
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Pid:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
			return uint32(n), err == nil
		}
	}
	return 0, false
}

func countLines(b []byte) int {
	n := 0
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
	}
	return n
}

// lsbRelease reads lsb-release keys, falling back to os-release ones.
func lsbRelease(l *minidump.LSBRelease) *JSONLSBRelease {
	get := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := l.Fields[k]; ok {
				return v
			}
		}
		return ""
	}
	return &JSONLSBRelease{
		ID:          get("DISTRIB_ID", "ID"),
		Release:     get("DISTRIB_RELEASE", "VERSION_ID"),
		Codename:    get("DISTRIB_CODENAME", "VERSION_CODENAME"),
		Description: get("DISTRIB_DESCRIPTION", "PRETTY_NAME"),
	}
}

func (b *jsonBuilder) macCrashInfo(recs []minidump.MacCrashInfoRecord) any {
	type record struct {
		AbortCause      string  `json:"abort_cause"`
		Backtrace       *string `json:"backtrace"`
		DialogMode      string  `json:"dialog_mode"`
		Message         *string `json:"message"`
		Message2        *string `json:"message2"`
		ModulePath      *string `json:"module_path"`
		SignatureString *string `json:"signature_string"`
		Thread          string  `json:"thread"`
	}
	out := struct {
		NumRecords int      `json:"num_records"`
		Records    []record `json:"records"`
	}{NumRecords: len(recs)}
	for _, r := range recs {
		out.Records = append(out.Records, record{
			AbortCause:      fmt.Sprintf("0x%016x", r.AbortCause),
			Backtrace:       nonEmpty(r.Backtrace),
			DialogMode:      fmt.Sprintf("0x%016x", r.DialogMode),
			Message:         nonEmpty(r.Message),
			Message2:        nonEmpty(r.Message2),
			ModulePath:      nonEmpty(r.ModulePath),
			SignatureString: nonEmpty(r.SignatureString),
			Thread:          fmt.Sprintf("0x%016x", r.Thread),
		})
	}
	return out
}

// rawJSON returns b as a JSON value when it is valid JSON, else nil.
func rawJSON(b []byte) json.RawMessage {
	b = bytes.TrimRight(b, "\x00")
	if !json.Valid(b) {
		return nil
	}
	return json.RawMessage(b)
}

// buildFromProcess fills the report from p (no minidump file).
func (b *jsonBuilder) buildFromProcess(p *JSONProcess) {
	ctx := minidump.NewContext(p.Arch)
	if ctx.WordSize() == 4 {
		b.hexWidth = 8
	}
	s := &b.r.SystemInfo
	s.OS = p.OS
	s.OSVer = nonEmpty(p.OSVersion)
	s.CPUArch = p.CPU
	s.CPUInfo = nonEmpty(p.CPUInfo)
	s.CPUCount = p.CPUCount
	if s.OS == "" {
		s.OS = "unknown"
	}
	if s.CPUArch == "" {
		s.CPUArch = "unknown"
	}

	for i, m := range p.Modules {
		if m == nil {
			continue
		}
		jm := JSONModule{
			BaseAddr:  b.hex(m.Base),
			CodeID:    nonEmpty(strings.ToLower(m.CodeID)),
			DebugFile: nonEmpty(fileBase(m.DebugFile)),
			DebugID:   nonEmpty(m.DebugID),
			EndAddr:   b.hex(m.Base + m.Size),
			Filename:  fileBase(m.CodeFile),
			Version:   nonEmpty(m.Version),
		}
		b.addModule(i, jm)
	}
	zero := 0
	b.r.MainModule = &zero

	b.r.ThreadCount = len(p.Threads)
	for i, id := range p.Threads {
		b.addThread(i, JSONThread{ThreadID: id})
	}
	// A microdump without a crash record has an empty reason: no crash info.
	if p.Crashed && p.CrashReason != "" {
		c := &b.r.CrashInfo
		c.Type = strPtr(rustCrashType(p.CrashReason))
		c.Address = b.hexPtr(p.CrashAddress)
		c.CrashInconsistencies = []string{}
		if b.in.RequestingThread >= 0 {
			idx := b.in.RequestingThread
			c.CrashingThread = &idx
		}
	}
}
