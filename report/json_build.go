package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
)

// JSONOptions are the JSON report's inputs beside the processed dump.
type JSONOptions struct {
	// CertSubjects maps a module's file name (base name of its code file) to
	// the subject of the certificate that signed it, from rust-minidump's
	// --evil-json side channel (ParseEvilJSON); nil when none was given.
	CertSubjects map[string]string
}

// buildJSON builds the report of st. It never fails: whatever part of the
// dump could not be read is null (and the reason in x_errors). When lazy,
// the long lists (modules, unloaded modules, threads) are left empty, for
// the returned builder to make one entry at a time as jsonStream writes
// them.
func buildJSON(st *processor.ProcessState, opts JSONOptions, lazy bool) (*JSONReport, *jsonBuilder) {
	r := &JSONReport{
		Status:          string(st.Status),
		Modules:         []JSONModule{},
		Threads:         []JSONThread{},
		UnloadedModules: []JSONUnloadedModule{},
	}
	if r.Status == "" {
		r.Status = string(processor.StatusOK)
	}
	r.Status = string(st.Outcome())
	r.ModulesContainsCertInfo = len(opts.CertSubjects) > 0
	b := &jsonBuilder{st: st, opts: opts, r: r, hexWidth: 16, seenErrors: map[string]bool{}, lazy: lazy}
	for _, err := range st.Errors {
		if isBroken(err) {
			b.addError(err.Error())
		}
	}
	switch st.Status {
	case processor.StatusNoMinidumpHeader, processor.StatusMinidumpNotFound:
		// Nothing was read.
		r.SystemInfo.OS = "unknown"
		r.SystemInfo.CPUArch = "unknown"
		b.lazy = false // nothing to list
		return r, b
	}
	b.build()
	return r, b
}

type jsonBuilder struct {
	st   *processor.ProcessState
	opts JSONOptions
	r    *JSONReport

	hexWidth int // digits of an address: 8 on 32-bit CPUs, 16 otherwise
	// seenErrors are the x_errors entries so far: one entry per problem,
	// however many lists of the state hold it.
	seenErrors map[string]bool
	// lazy: the long lists are made entry by entry while they are written.
	lazy bool
}

// addError adds a problem to x_errors unless it is there already.
func (b *jsonBuilder) addError(text string) {
	if !b.seenErrors[text] {
		b.seenErrors[text] = true
		b.r.Errors = append(b.r.Errors, text)
	}
}

// hex formats an address or offset as rust-minidump does: zero-padded to the
// CPU's pointer width.
func (b *jsonBuilder) hex(v uint64) string {
	if b.hexWidth > 16 {
		return fmt.Sprintf("0x%0*x", b.hexWidth, v)
	}
	// Without fmt: two per module, it was a tenth of a 685,906-module
	// report's time (docs/limits.md).
	var buf [2 + 16]byte
	out := append(buf[:0], "0x"...)
	var digits [16]byte
	d := strconv.AppendUint(digits[:0], v, 16)
	for range b.hexWidth - len(d) {
		out = append(out, '0')
	}
	return string(append(out, d...))
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

// jsonStreamErrors are the streams whose read errors x_errors lists after
// the processor's problems, in this order (rust-minidump's reading order).
var jsonStreamErrors = [...]processor.Stream{
	processor.StreamSystemInfo, processor.StreamModuleList, processor.StreamUnloadedModules,
	processor.StreamThreadList, processor.StreamThreadNames, processor.StreamException,
	processor.StreamSoftErrors, processor.StreamMacBootArgs, processor.StreamHandleData, processor.StreamCrashpad,
}

func (b *jsonBuilder) build() {
	b.buildSystemInfo()
	b.buildModules()
	b.buildThreads()
	b.buildCrashInfo()
	b.buildProcessFacts()
	for _, stream := range jsonStreamErrors {
		for _, e := range b.st.ReadErrors {
			if e.Stream == stream {
				b.addError(e.Error()) // "stream: problem", as st.Errors words it
			}
		}
	}
	b.buildStreamFacts()
}

// isBroken tells a real read error from "the stream is not present".
func isBroken(err error) bool {
	return err != nil && !errors.Is(err, minidump.ErrNoStream)
}

func (b *jsonBuilder) buildSystemInfo() {
	s := &b.r.SystemInfo
	sys := b.st.System
	if sys == nil {
		s.OS = "unknown"
		s.CPUArch = "unknown"
		return
	}
	if ctx := minidump.NewContext(sys.Arch); ctx.WordSize() == 4 {
		b.hexWidth = 8
	}
	s.OS = sys.OS
	s.CPUArch = sys.CPU
	s.CPUInfo = nonEmpty(sys.CPUInfo)
	s.CPUCount = sys.CPUCount
	if sys.Minidump != nil {
		s.OSVer = strPtr(osVersion(sys.Minidump))
		return
	}
	// A microdump: the processor's words as they are.
	s.OSVer = nonEmpty(sys.OSVersion)
	if s.OS == "" {
		s.OS = "unknown"
	}
	if s.CPUArch == "" {
		s.CPUArch = "unknown"
	}
}

// osVersion is rust-minidump's os_ver: "major.minor.build CSD" ("5.1.2600
// Service Pack 2", "11.6.7 20G630"; no trailing space when the CSD string is
// empty). On Linux and Android the CSD string holds uname's fields and the
// result is "release version" without the machine name: Breakpad's older
// Linux writer stores "Linux <release> <version> <machine>" with version
// 0.0.0 (rust-minidump's linux-mini.dmp: "4.9.60-linuxkit-aufs #1 SMP ..."),
// the newer one stores the release's numbers in major.minor.build and the
// rest of the release, the version and the machine in the CSD string.
func osVersion(si *processor.MinidumpOS) string {
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
	if b.st.System == nil || b.st.System.Minidump == nil {
		return 0xffffffff
	}
	return b.st.System.Minidump.Platform
}

// codeID is rust-minidump's code_id: Breakpad's code identifier in lower
// case (Windows "TIMESTAMPsize", ELF build id); for macOS, whose Breakpad
// code identifier is the placeholder "id", the Mach-O UUID taken from the
// debug identifier.
func (b *jsonBuilder) codeID(m *processor.Module) *string {
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
	// Breakpad's and rust-minidump's main module is the first listed;
	// rust-minidump prints 0 even when there are no modules.
	zero := 0
	b.r.MainModule = &zero
	if b.lazy {
		return // jsonStream asks for each module as it writes it
	}
	for i := range b.st.Modules {
		b.r.Modules = append(b.r.Modules, b.module(i))
	}
	for i := range b.st.UnloadedModules {
		b.r.UnloadedModules = append(b.r.UnloadedModules, b.unloadedModule(i))
	}
}

// module is the i-th entry of "modules".
func (b *jsonBuilder) module(i int) JSONModule {
	m := b.st.Modules[i]
	jm := JSONModule{
		BaseAddr:  b.hex(m.Base),
		CodeID:    b.codeID(m),
		DebugFile: nonEmpty(m.DebugName()),
		DebugID:   nonEmpty(m.DebugID),
		EndAddr:   b.hex(m.End()),
		Filename:  m.Name(),
		Version:   nonEmpty(m.Version),
	}
	// Without a supplier no module was tried: none is missing
	// symbols, as in rust-minidump without symbol paths.
	switch m.Symbols {
	case processor.SymbolsLoaded:
		jm.LoadedSymbols = true
	case processor.SymbolsMissing:
		jm.MissingSymbols = true
	case processor.SymbolsCorrupt:
		jm.CorruptSymbols = true
	}
	jm.CertSubject = b.certSubject(jm.Filename)
	return jm
}

// unloadedModule is the i-th entry of "unloaded_modules".
func (b *jsonBuilder) unloadedModule(i int) JSONUnloadedModule {
	u := b.st.UnloadedModules[i]
	var ts uint32
	if stamps := b.st.Facts.UnloadedTimeDateStamps; i < len(stamps) {
		ts = stamps[i]
	}
	return JSONUnloadedModule{
		BaseAddr:    b.hex(u.Base),
		CodeID:      fmt.Sprintf("%08x%x", ts, u.Size),
		EndAddr:     b.hex(u.End()),
		Filename:    u.Name(),
		CertSubject: b.certSubject(u.Name()),
	}
}

// certSubject returns the certificate subject of the module file name.
func (b *jsonBuilder) certSubject(filename string) *string {
	if subject, ok := b.opts.CertSubjects[filename]; ok {
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

func (b *jsonBuilder) buildThreads() {
	b.r.ThreadCount = len(b.st.Threads)
	for i, th := range b.st.Threads {
		if !b.lazy {
			b.r.Threads = append(b.r.Threads, b.thread(i))
		}
		if i == b.st.RequestingThread {
			ct := b.thread(i)
			idx := i
			ct.ThreadsIndex = &idx
			if len(ct.Frames) > 0 {
				ct.Frames[0].Registers = b.registers(th.Frames)
			}
			b.r.CrashingThread = &ct
		}
	}
}

// thread is the i-th entry of "threads".
func (b *jsonBuilder) thread(i int) JSONThread {
	th := b.st.Threads[i]
	jt := JSONThread{ThreadID: th.ID, LastErrorValue: b.lastError(th.ID)}
	if th.HasName {
		jt.ThreadName = strPtr(th.Name)
	}
	jt.Frames = b.frames(th.Frames)
	jt.FrameCount = len(jt.Frames)
	return jt
}

// frames folds inlined frames into the physical frame that follows them.
func (b *jsonBuilder) frames(stack []*processor.Frame) []JSONFrame {
	out := []JSONFrame{}
	var inlines []JSONInline
	for _, fr := range stack {
		if fr == nil {
			continue
		}
		if fr.Trust == processor.TrustInline {
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
		if m := fr.LoadedModule(); m != nil {
			jf.Module = strPtr(m.Name())
			jf.ModuleOffset = b.hexPtr(fr.Instruction - m.Base)
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
	for _, u := range b.st.UnloadedModules {
		if addr >= u.Base && addr-u.Base < u.Size {
			name := u.Name()
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

// jsonRegisterName is rust-minidump's name for the register Breakpad calls
// name: the same but for x86's flags.
func jsonRegisterName(name string) string {
	if name == "efl" {
		return "eflags"
	}
	return name
}

// registers lists the valid registers of the first physical frame.
func (b *jsonBuilder) registers(stack []*processor.Frame) map[string]string {
	for _, fr := range stack {
		if fr == nil || fr.Trust == processor.TrustInline {
			continue
		}
		regs := map[string]string{}
		ctx := fr.Context
		for i, name := range minidump.RegisterNames(ctx.Arch) {
			v, ok := ctx.Index(i)
			if !ok {
				continue
			}
			regs[jsonRegisterName(name)] = b.hex(v)
		}
		if len(regs) == 0 {
			return nil
		}
		return regs
	}
	return nil
}

func (b *jsonBuilder) buildCrashInfo() {
	st := b.st
	c := &b.r.CrashInfo
	if st.Assertion != "" {
		c.Assertion = strPtr(st.Assertion)
	}
	// A minidump without an exception stream, or a microdump without a
	// crash record (an empty reason), has no crash info.
	if !st.Crashed || (st.Exception == nil && st.CrashReason == "") {
		return
	}
	c.Type = strPtr(rustCrashType(st.CrashReason))
	c.Address = b.hexPtr(st.CrashAddress)
	if b.st.CrashAnalysis != nil {
		b.addCrashAnalysis(c, *b.st.CrashAnalysis)
	}
	c.CrashInconsistencies = []string{}
	if st.RequestingThread >= 0 {
		idx := st.RequestingThread
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
	f := &b.st.Facts
	if f.HasPID {
		pid := f.PID
		b.r.PID = &pid
	}
	if b.st.HasUptime {
		up := b.st.ProcessUptime
		b.r.ProcessUptime = &up
	}
	if f.LSBRelease != nil {
		b.r.LSBRelease = lsbRelease(f.LSBRelease)
	}
	if f.HasMemoryMaps {
		n := f.MemoryMapCount
		b.r.LinuxMemoryMapCount = &n
	}
	if len(f.MacCrashInfo) > 0 {
		b.r.MacCrashInfo = macCrashInfo(f.MacCrashInfo)
	}
	if f.SoftErrors != nil {
		b.r.SoftErrors = rawJSON(f.SoftErrors)
	}
	if f.HasMacBootArgs {
		b.r.MacBootArgs = f.MacBootArgs
	}
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

func macCrashInfo(recs []minidump.MacCrashInfoRecord) any {
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
