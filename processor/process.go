package processor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/crashinfo"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/amd64"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/x86"
)

// Options tune processing. The zero value gives our walk; Mode
// ModeBreakpad gives Breakpad's.
type Options struct {
	MaxFrames  int // frames per thread; 0 means walker.DefaultMaxFrames
	MaxScanned int // scanned frames per thread before scanning stops; 0 means walker.DefaultMaxScanned
	// Workers is how many threads are walked at once; 0 means GOMAXPROCS,
	// or one (no goroutines) for up to maxInlineWalks threads without
	// symbols.
	Workers int
	// Mode is the one switch to Breakpad's behaviour (ModeBreakpad):
	// the walkers' rules (walker.Mode, read by every architecture alike)
	// and the processor's (see the package doc): symbol lookups relative
	// to the module entry holding an address even when an image spans
	// several entries; walking past the program's entry function; thread
	// stacks only where Breakpad finds them (no Memory64ListStream, no
	// region found by the stack pointer); no code for the walkers; a
	// module list with overlapping modules rejected outside Linux and
	// Android.
	Mode Mode
	// NoCode withholds the dump's memory from the walkers as code
	// (walker.Env.Code), as for a dump that holds none: stack scans then
	// take the first plausible word, as Breakpad's do, instead of
	// skipping words no call instruction precedes and preferring a call
	// to the callee's own function. For measuring what the call sites
	// add; ModeBreakpad implies it.
	NoCode bool
	// Native gives the modules' own executable files (elfsupplier, for
	// --use-local-debuginfo): where a symbol file has no CFI the walkers
	// use the file's unwind tables, else its prologues, and its code
	// serves as the dump's code does (NoCode withholds it too). Not read
	// in Breakpad's mode. Nil: none.
	Native NativeSupplier
	// Trace records every step of every walk: which rule found each frame
	// and what was rejected before it (walker.Frame.Steps), and why the
	// walk ended (Thread.WalkEnd).
	Trace bool

	// MaxTotalFrames bounds the frames kept across all threads (see
	// frameCaps); 0 means DefaultMaxTotalFrames.
	MaxTotalFrames int
	// MaxTime bounds the time the walks of a dump take; 0 means
	// DefaultMaxTime.
	MaxTime time.Duration
	// Context, when not nil, stops the walks once it is done, as MaxTime
	// does: batch cancels a dump past its --timeout, so that its work and
	// memory end instead of running on beside the next dumps.
	Context context.Context
	// WalkOnlyRequesting walks only the requesting thread (none when no
	// thread is requesting), for outputs that print no other (-b, and -c
	// outside Breakpad's mode); the other threads get ThreadNotWalked, and
	// their modules no symbol lookups, so no "No symbols" marks.
	WalkOnlyRequesting bool
	// Walks, when not nil, keeps the walkers' memory (their frames and
	// register files, walker.Walks) and the threads' frames from one
	// processing to the next, for a caller that processes dumps one after
	// another (a batch worker): the ProcessState's frames are then in
	// that memory, so the caller drops the ProcessState before its next
	// processing with the same Walks. Never shared by processings that
	// run at once.
	Walks *WalkMemory
}

// WalkMemory is the memory that Options.Walks keeps: for each thread
// walked at once, a walker.Walks and a slab of the threads' frames. The
// zero value is ready.
type WalkMemory struct{ workers []*walkWorker }

// walkWorker is one walking goroutine's memory.
type walkWorker struct {
	walks walker.Walks
	// kept: the memory is an Options.Walks', kept for later processings;
	// else each thread's frames are their own allocation.
	kept bool
	// slab[:used] are the frames of this processing's threads so far.
	slab []Frame
	used int
}

// maxSlabFrames bounds a walkWorker's slab (about 400 KB): the frames of
// a dump's threads past it are each thread's own allocation.
const maxSlabFrames = 1024

// get returns n workers' memory, made as needed (new ones when m is nil),
// each ready for a new processing: the last one's frames zeroed.
func (m *WalkMemory) get(n int) []*walkWorker {
	var own WalkMemory
	kept := m != nil
	if !kept {
		m = &own
	}
	for len(m.workers) < n {
		m.workers = append(m.workers, &walkWorker{kept: kept})
	}
	for _, w := range m.workers[:n] {
		clear(w.slab[:w.used])
		w.used = 0
	}
	return m.workers[:n]
}

// frames returns room for n frames, to be filled whole: in the slab, which
// grows (the frames already given keep the old one) up to maxSlabFrames.
func (w *walkWorker) frames(n int) []Frame {
	if !w.kept {
		return make([]Frame, n)
	}
	if w.used+n > len(w.slab) {
		size := max(2*len(w.slab), 64)
		for size < n {
			size *= 2
		}
		if size > maxSlabFrames {
			return make([]Frame, n)
		}
		w.slab, w.used = make([]Frame, size), 0
	}
	v := w.slab[w.used : w.used+n : w.used+n]
	w.used += n
	return v
}

// breakpad reports whether the options select Breakpad's behaviour.
func (o Options) breakpad() bool { return o.Mode == walker.Breakpad }

// ErrNoThreadList is returned when the dump has no readable thread list;
// Breakpad fails processing then. The returned state still holds the rest.
var ErrNoThreadList = errors.New("processor: minidump has no thread list")

// Process walks and symbolizes every thread of dump. syms may be nil (no
// symbols). It returns an error only when the dump cannot be processed at
// all; problems with single streams are collected in ProcessState.Errors.
//
// It reads the dump once (readDump), fills the state from what it read,
// plans one walk per thread and runs the walk phase ProcessMicrodump
// shares (walkThreads).
func Process(dump *minidump.File, syms symfile.Supplier, opts Options) (*ProcessState, error) {
	r := readDump(dump, opts)
	st := &ProcessState{Status: StatusOK, RequestingThread: -1, MainModule: -1}
	st.TimeDateStamp = r.header.TimeDateStamp
	st.ProcessCreateTime, st.HasCreateTime = r.createTime, r.hasCreateTime
	st.ProcessUptime, st.HasUptime = r.uptime, r.hasUptime
	st.fillCrash(r)
	loaded := st.fillModules(r, opts)
	st.Facts = r.facts
	st.ReadErrors = append(st.ReadErrors, r.factErrs...)
	if r.crash != nil {
		a := crashinfo.AnalyzeDump(r.crash)
		st.CrashAnalysis = &a
	}
	plan := st.newWalkPlan(syms, opts)
	plan.modules = loaded
	plan.env.Modules = moduleMap(st, r.mods, loaded, opts)
	if len(st.UnloadedModules) > 0 {
		plan.env.Unloaded = newUnloadedFinder(st.UnloadedModules)
	}
	if !opts.breakpad() && r.crash != nil {
		plan.env.Executable = executableMap(r.crash.MemoryInfo, r.crash.Maps)
	}
	if !opts.breakpad() && st.System != nil && (st.System.OSShort == "linux" || st.System.OSShort == "android") {
		plan.env.EntryPoint = r.entryPoint
		plan.env.NoInterpreter = r.noInterpreter
		// Without the auxiliary vector, the main module's _start is the
		// entry function (the ELF entry point of glibc, musl and bionic programs).
		if plan.env.EntryPoint == 0 && st.MainModule >= 0 {
			plan.env.EntryModule = loaded[st.MainModule]
			plan.env.EntrySymbol = "_start"
		}
	}
	if r.threadsErr != nil {
		st.note(StreamThreadList, r.threadsErr)
		if r.threads == nil {
			st.noteRead(StreamThreadNames, r.namesErr) // the JSON report lists it
			st.Status, st.fatal = StatusNoThreadList, ErrNoThreadList
			return st, ErrNoThreadList
		}
	}
	if r.namesErr != nil {
		st.note(StreamThreadNames, r.namesErr)
	}
	if r.memErr != nil {
		st.note(StreamMemoryList, r.memErr)
	}
	plan.setCode(r.mem, opts)
	plan.jobs = st.threadJobs(r, opts)
	st.walkThreads(plan, opts)
	return st, nil
}

// fillCrash fills the system info and the crash from what was read.
func (st *ProcessState) fillCrash(r *dumpStreams) {
	if r.sysErr != nil {
		st.note(StreamSystemInfo, r.sysErr)
	}
	if si := r.sys; si != nil {
		st.System = &SystemInfo{
			OS: si.OS(), OSShort: si.Platform.ShortName(), OSVersion: si.OSVersion(),
			CPU: si.CPU(), CPUInfo: si.CPUInfo(), CPUCount: si.CPUCount(), Arch: si.Arch,
			Minidump: &MinidumpOS{
				Platform: si.Platform, MajorVersion: si.MajorVersion, MinorVersion: si.MinorVersion,
				BuildNumber: si.BuildNumber, CSDVersion: si.CSDVersion, HasCSDVersion: si.HasCSDVersion,
			},
		}
	}
	if r.exErr != nil {
		st.note(StreamException, r.exErr)
	}
	if ex := r.ex; ex != nil {
		st.Crashed = true
		st.Exception = newException(ex)
		st.CrashReason = minidump.CrashReason(r.sys, ex)
		st.CrashAddress = minidump.CrashAddress(r.sys, ex)
	}
	st.Assertion = r.assertion
}

// fillModules fills the module and unloaded module lists from what was
// read and returns the walker's loaded modules, in dump order.
func (st *ProcessState) fillModules(r *dumpStreams, opts Options) (loaded []*walker.Module) {
	mods := r.mods
	if r.modsErr != nil {
		st.note(StreamModuleList, r.modsErr)
	}
	if r.modsErr == nil || len(mods) > 0 {
		st.HaveModules = true
	}
	loaded = make([]*walker.Module, len(mods))
	for i := range mods {
		m := &mods[i]
		loaded[i] = &walker.Module{
			Index: i, Base: m.Base, Size: uint64(m.Size),
			CodeFile: m.Name, CodeID: m.CodeID, DebugFile: m.DebugFile, DebugID: m.DebugID, Version: m.Version,
			SymbolBase: m.Base,
		}
	}
	st.MainModule = minidump.MainModule(mods)
	if !opts.breakpad() {
		setImageBases(loaded)
	}
	st.Modules = newModules(loaded)
	if r.unloadedErr != nil {
		st.note(StreamUnloadedModules, r.unloadedErr)
	}
	// The state's unloaded modules only, in one allocation: the walker
	// asks for them through newUnloadedFinder (a dump may list a million).
	if n := len(r.unloaded); n > 0 {
		vals := make([]Module, n)
		st.UnloadedModules = make([]*Module, n)
		for i, u := range r.unloaded {
			vals[i] = Module{Index: i, Unloaded: true, Base: u.Base, Size: uint64(u.Size), CodeFile: u.Name, SymbolBase: u.Base}
			st.UnloadedModules[i] = &vals[i]
		}
	}
	return loaded
}

// newModules copies the walk's modules; nil for none.
func newModules(mods []*walker.Module) []*Module {
	if len(mods) == 0 {
		return nil
	}
	out, vals := make([]*Module, len(mods)), make([]Module, len(mods))
	for i, m := range mods {
		vals[i] = moduleValue(m)
		out[i] = &vals[i]
	}
	return out
}

// setCode gives the walkers the code they may read before candidate
// return addresses: all of the dump's memory (Breakpad reads only thread
// stacks), and the modules' own files with Options.Native.
func (p *walkPlan) setCode(memList *minidump.MemoryList, opts Options) {
	if opts.breakpad() {
		return
	}
	if !opts.NoCode && memList != nil {
		p.env.Code = dumpCode{memList}
	}
	if opts.Native != nil {
		p.env.Native = newNativeCache(opts.Native)
		if !opts.NoCode {
			code := &codeMemory{modules: p.env.Modules, native: p.env.Native}
			if memList != nil {
				code.dump = dumpCode{memList}
			}
			p.env.Code = code
		}
	}
}

// dumpCode is the dump's memory as the walkers' code. Most reads miss (a
// dump keeps code only around the crash or the registers), and the walkers
// drop the error: a miss returns errNoCode rather than the memory list's
// error naming the address, which costs an allocation for every
// candidate return address of a scan.
type dumpCode struct{ m *minidump.MemoryList }

func (c dumpCode) ReadMemory(addr uint64, p []byte) error {
	r, ok := c.m.Region(addr)
	if !ok || uint64(len(p)) > r.Size-(addr-r.Base) {
		return errNoCode
	}
	return c.m.ReadMemory(addr, p)
}

// threadJobs adds every thread of the thread list to the state and
// returns the walks to run: each thread's starting context and stack
// memory.
func (st *ProcessState) threadJobs(r *dumpStreams, opts Options) []walkJob {
	threads, roles := r.threads, r.roles
	var jobs []walkJob
	if len(threads) > 0 {
		jobs = make([]walkJob, 0, len(threads))
		st.Threads = make([]*Thread, 0, len(threads))
	}
	unreadable := repeatedNotes{what: "threads with unreadable stacks"}
	for i := range threads {
		t := &threads[i]
		th := &Thread{Index: i, ID: t.ID}
		th.Name, th.HasName = r.names[t.ID]
		st.Threads = append(st.Threads, th)
		if roles.HasDumpThread && t.ID == roles.DumpThreadID {
			th.Status = ThreadDumpThread
			continue
		}
		ctx := t.Context
		if roles.HasRequestingThread && t.ID == roles.RequestingThreadID && st.RequestingThread < 0 {
			st.RequestingThread = i
			if st.Crashed && r.ex.Context != nil {
				ctx = r.ex.Context
			}
		}
		if ctx != nil {
			// Breakpad reads every register of a thread's context whatever
			// its flags say, prints them all in frame 0 and walks from them
			// (the oracle on dumps whose flags omit the integer or control
			// group: TestFrameZeroIgnoresContextFlags). We do the same, so
			// the walk starts from the registers the report shows; values a
			// writer left out fail the walkers' checks (a frame pointer
			// outside the stack, a return address outside every module) as
			// any bad value would.
			all := *ctx
			all.SetAllValid()
			ctx = &all
		}
		th.Context = ctx
		var stackErr error
		th.StackBase, th.Stack, stackErr = r.threadStack(i, ctx, opts.breakpad())
		if stackErr != nil && ctx != nil {
			unreadable.add(fmt.Errorf("thread %d (id %#x): stack memory unreadable, walked from its context alone: %w", i, t.ID, stackErr))
		}
		if ctx == nil {
			th.Status = ThreadNoContext
			continue
		}
		if opts.WalkOnlyRequesting && st.RequestingThread != i {
			th.Status = ThreadNotWalked
			continue
		}
		var mem walker.Memory
		if th.Stack != nil || t.Stack.Size != 0 {
			mem = &region{base: th.StackBase, data: th.Stack}
			if ctx.Arch == minidump.ArchX86 && th.StackBase+uint64(len(th.Stack)) > 1<<32 {
				mem = nil // Breakpad refuses x86 stack memory above 4 GiB
			}
		}
		jobs = append(jobs, walkJob{thread: th, ctx: ctx, mem: mem})
	}
	unreadable.flush(st, StreamThreadList)
	return jobs
}

// note records the error of reading a stream: in Errors, and in
// ReadErrors (the same *StreamError) when the stream is present but broken.
func (s *ProcessState) note(stream Stream, err error) {
	e := &StreamError{Stream: stream, Err: capJoined(stream, err)}
	s.Errors = append(s.Errors, e)
	if !errors.Is(e.Err, minidump.ErrNoStream) {
		s.ReadErrors = append(s.ReadErrors, e)
	}
}

// noteRead records in ReadErrors a stream that is present but broken.
func (s *ProcessState) noteRead(stream Stream, err error) {
	if err != nil && !errors.Is(err, minidump.ErrNoStream) {
		s.ReadErrors = append(s.ReadErrors, &StreamError{Stream: stream, Err: capJoined(stream, err)})
	}
}

// archWalker returns the walker for a context's CPU, or nil.
func archWalker(a minidump.Arch) walker.Arch {
	switch a {
	case minidump.ArchARM, minidump.ArchARM64, minidump.ArchARM64Old:
		return armWalker(a)
	case minidump.ArchX86:
		return x86.New()
	case minidump.ArchAMD64:
		return amd64.New()
	}
	return nil
}

// threadStack returns the thread's stack memory as Breakpad picks it: the
// stack descriptor's bytes when it is well-formed (desc, read by
// readStacks), else the memory-list region that holds the descriptor's
// start address. Breakpad reads only the MemoryListStream for that; by
// default (breakpad false) the Memory64ListStream of full-memory dumps
// counts too, and when the descriptor leads nowhere, the region holding
// the context's stack pointer is the stack.
//
// The error reports a descriptor whose bytes cannot be read (the thread is
// then walked from its context alone, as Breakpad does).
//
// The bytes of a memory-mapped dump are a copy (stackOf): they are gone
// once the dump is closed, and the ProcessState (Thread.Stack) is printed
// after that.
func (r *dumpStreams) threadStack(i int, ctx *minidump.Context, breakpad bool) (uint64, []byte, error) {
	t, desc := &r.threads[i], r.stacks[i]
	d := t.Stack
	if desc.wellFormed {
		return d.Start, desc.data, desc.err
	}
	region := func(addr uint64) (uint64, []byte, bool) {
		m, ok := r.mem.Region(addr)
		if !ok || (breakpad && m.Memory64) {
			return 0, nil, false
		}
		b, err := m.Bytes()
		if err != nil {
			return 0, nil, false
		}
		src := stackSource{region: true, memory64: m.Memory64, at: m.Base, size: uint64(len(b))}
		return m.Base, r.stackOf(src, b), true
	}
	if d.Start != 0 {
		if base, b, ok := region(d.Start); ok {
			return base, b, nil
		}
	}
	if !breakpad && ctx != nil {
		if sp, ok := ctx.SP(); ok && sp != 0 {
			if base, b, ok := region(sp); ok {
				return base, b, nil
			}
		}
	}
	return 0, nil, nil
}

// maxInlineWalks is how many threads are walked one after the other, on
// the caller's goroutine, when no symbols are loaded: such walks take tens
// of microseconds each, less than starting the OS threads that would run
// workers in parallel (a one-shot process on a small dump paid for their
// stacks in page faults).
const maxInlineWalks = 8

// region is one range of memory.
type region struct {
	base uint64
	data []byte
}

var errOutside = errors.New("processor: address outside the thread's stack memory")

func (r *region) ReadMemory(addr uint64, p []byte) error {
	if addr < r.base || addr-r.base > uint64(len(r.data)) || uint64(len(r.data))-(addr-r.base) < uint64(len(p)) {
		return errOutside
	}
	copy(p, r.data[addr-r.base:])
	return nil
}

// moduleMap finds modules by address the way Breakpad's processor does
// (minidump.BreakpadModuleRanges): when modules overlap, the lower one is
// truncated to end where the higher one starts, and a module starting where
// another starts is left out. Breakpad does this only on Linux and Android,
// where relocated shared-library mappings do overlap; on other platforms it
// rejects the whole list, so every frame loses its module and symbols
// (TestOverlappingModules). We truncate on every platform unless
// Breakpad mode. st.ModuleOrder gets the modules that have a range,
// in Breakpad's print order.
func moduleMap(st *ProcessState, mods []minidump.Module, loaded []*walker.Module, opts Options) *walker.ModuleMap {
	var ranges []minidump.ModuleRange
	if opts.breakpad() {
		var platform minidump.Platform
		if st.System != nil && st.System.Minidump != nil {
			platform = st.System.Minidump.Platform
		}
		var err error
		if ranges, err = minidump.BreakpadModuleRanges(mods, platform); err != nil {
			// A warning, not a StreamError: the list itself was read.
			st.Errors = append(st.Errors, fmt.Errorf("%v: %w", StreamModuleList, err))
			st.HaveModules = false // Breakpad prints no "Loaded modules:" either
		}
	} else {
		ranges = minidump.TruncatedModuleRanges(mods)
	}
	sorted := make([]*walker.Module, len(ranges))
	bounds := make([][2]uint64, len(ranges))
	st.ModuleOrder = make([]int, len(ranges))
	for i, r := range ranges {
		sorted[i] = loaded[r.Index]
		bounds[i] = [2]uint64{r.Start, r.End}
		st.ModuleOrder[i] = r.Index
	}
	st.moduleRanges = walker.NewModuleMapRanges(sorted, bounds)
	return st.moduleRanges
}
