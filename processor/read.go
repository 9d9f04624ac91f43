package processor

// The read phase of a minidump: every stream the walk and the reports
// need, read once into one struct (rust-minidump's shape), before the walk
// phase (walk.go) that minidumps and microdumps share.

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/crashinfo"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// atEntry is the auxiliary vector tag of the program entry point.
const atEntry = 9

// atBase is the auxiliary vector tag of the interpreter's base address
// (0 when the kernel started the program without one).
const atBase = 7

// dumpStreams is what the read phase took from a minidump: each stream's
// value and the error reading it, and the JSON-only facts. Nothing is
// noted yet: Process notes the errors in its fixed order (the order of
// Errors and ReadErrors is part of every report).
type dumpStreams struct {
	header                   minidump.Header
	createTime, uptime       uint32
	hasCreateTime, hasUptime bool

	sys    *minidump.SystemInfo // nil when unreadable
	sysErr error
	ex     *minidump.Exception // nil when absent or unreadable
	exErr  error
	// assertion is Breakpad's assertion info, as text.
	assertion string

	mods        []minidump.Module
	modsErr     error
	unloaded    []minidump.UnloadedModule
	unloadedErr error
	threads     []minidump.Thread
	threadsErr  error
	names       map[uint32]string
	namesErr    error
	mem         *minidump.MemoryList // what of the memory lists could be read
	memErr      error
	roles       minidump.ThreadRoles
	stacks      []stackBytes // parallel to threads
	stackCopies stackCopies  // one copy of each range of bytes a stack names
	inMemory    bool         // the dump was read whole: stacks are not copied
	entryPoint  uint64       // the auxiliary vector's AT_ENTRY; 0: none
	// noInterpreter: the auxiliary vector's AT_BASE is 0 (no interpreter ran).
	noInterpreter bool

	// facts are the JSON report's facts, factErrs the streams read for them
	// that are present but unreadable, in reading order.
	facts    Facts
	factErrs []*StreamError
	// crash holds what crashinfo reads (outside Breakpad's mode).
	crash *crashinfo.DumpStreams
}

// readDump is the read phase of Process. It reads what opts will use: no
// auxiliary vector or crash analysis in Breakpad's mode.
func readDump(dump *minidump.File, opts Options) *dumpStreams {
	r := &dumpStreams{header: dump.Header, inMemory: dump.InMemory()}
	r.createTime, r.hasCreateTime = dump.ProcessCreateTime()
	r.uptime, r.hasUptime = dump.ProcessUptime()
	if r.sys, r.sysErr = dump.SystemInfo(); r.sysErr != nil {
		r.sys = nil
	}
	if r.ex, r.exErr = dump.Exception(); r.exErr != nil {
		r.ex = nil
	}
	r.assertion = dump.Assertion()
	r.mods, r.modsErr = dump.Modules()
	r.unloaded, r.unloadedErr = dump.UnloadedModules()
	r.threads, r.threadsErr = dump.Threads()
	r.names, r.namesErr = dump.ThreadNames()
	r.mem, r.memErr = dump.Memory()
	r.roles = dump.ThreadRoles()
	r.readStacks(dump)
	r.readFacts(dump)
	if opts.breakpad() {
		return r
	}
	if r.sys != nil && (r.sys.Platform.ShortName() == "linux" || r.sys.Platform.ShortName() == "android") {
		if auxv, err := dump.Auxv(); err == nil {
			for _, a := range auxv {
				switch a.Type {
				case atEntry:
					r.entryPoint = a.Value
				case atBase:
					r.noInterpreter = a.Value == 0
				}
			}
		}
	}
	r.crash = &crashinfo.DumpStreams{System: r.sys, Exception: r.ex, Memory: r.mem}
	r.crash.MemoryInfo, _ = dump.MemoryInfo()
	r.crash.Maps, _ = dump.MapsRegions()
	if r.sys != nil && r.sys.Arch == minidump.ArchARM {
		cpsr, err := dump.ExceptionARMCPSR()
		r.crash.CPSR, r.crash.HasCPSR = cpsr, err == nil
	}
	return r
}

// stackBytes is a thread's stack descriptor's bytes.
type stackBytes struct {
	wellFormed bool   // the descriptor is well-formed: its bytes are the stack
	data       []byte // outlives the dump (stackOf): the state keeps it
	err        error  // the bytes could not be read
}

// stackCopies keeps one copy of each range of dump bytes a thread's stack
// is read from. The state keeps its stacks after the dump is closed, so
// they are copies; threads naming the same bytes share one, because a
// hostile dump can point a thousand threads at one large region and a copy
// each would multiply it (docs/limits.md).
type stackCopies map[stackSource][]byte

// stackSource names a range of dump bytes: a stack descriptor's (file
// offset and size) or a memory list's region (its base, which list).
type stackSource struct {
	region   bool
	memory64 bool
	at, size uint64
}

// stackOf returns b, the bytes of src, in memory that outlives the dump:
// b itself when the dump was read whole into memory, else its one copy
// (of a memory map, or one for all the threads whose reads through a file
// name src). A batch of small dumps, each read whole, copied most of each
// dump again (issue 29: 55 KB a dump, as much as the dump's own read).
func (r *dumpStreams) stackOf(src stackSource, b []byte) []byte {
	if r.inMemory {
		return b
	}
	return r.stackCopies.of(src, b)
}

// of returns the copy of b, the bytes of src, making it the first time.
func (c *stackCopies) of(src stackSource, b []byte) []byte {
	if *c == nil {
		*c = make(stackCopies)
	}
	if kept, ok := (*c)[src]; ok {
		return kept
	}
	kept := bytes.Clone(b)
	(*c)[src] = kept
	return kept
}

// readStacks reads the bytes of every thread's well-formed stack
// descriptor, but the dump-writing thread's, which is not walked.
func (r *dumpStreams) readStacks(dump *minidump.File) {
	r.stacks = make([]stackBytes, len(r.threads))
	for i := range r.threads {
		t := &r.threads[i]
		if r.roles.HasDumpThread && t.ID == r.roles.DumpThreadID {
			continue
		}
		d := t.Stack
		if d.Off == 0 || d.Size == 0 || d.Start+uint64(d.Size) <= d.Start {
			continue
		}
		r.stacks[i].wellFormed = true
		if b, err := dump.StackBytes(t); err != nil {
			r.stacks[i].err = err
		} else {
			r.stacks[i].data = r.stackOf(stackSource{at: uint64(d.Off), size: uint64(d.Size)}, b)
		}
	}
}

// readFacts reads the facts only the JSON report shows.
func (r *dumpStreams) readFacts(dump *minidump.File) {
	f := &r.facts
	for _, u := range r.unloaded {
		f.UnloadedTimeDateStamps = append(f.UnloadedTimeDateStamps, u.TimeDateStamp)
	}
	if mi, err := dump.MiscInfo(); err == nil && mi.Flags1&minidump.MiscInfoProcessID != 0 {
		f.PID, f.HasPID = mi.ProcessID, true
	} else if status, err := dump.ProcStatus(); err == nil {
		f.PID, f.HasPID = procStatusPID(status)
	}
	if lsb, err := dump.LSBRelease(); err == nil {
		f.LSBRelease = lsb
	}
	if maps, err := dump.Maps(); err == nil {
		f.MemoryMapCount, f.HasMemoryMaps = countLines(maps), true
	}
	if recs, err := dump.MacCrashInfo(); err == nil && len(recs) > 0 {
		f.MacCrashInfo = recs
	}
	var err error
	f.SoftErrors, err = dump.MozSoftErrors()
	r.factError(StreamSoftErrors, err)
	f.MacBootArgs, err = dump.MacBootArgs()
	f.HasMacBootArgs = err == nil
	r.factError(StreamMacBootArgs, err)
	hs, err := dump.HandleData()
	r.factError(StreamHandleData, err)
	if err == nil || len(hs) > 0 { // a partly readable stream lists what it can
		f.Handles, f.HasHandles = hs, true
	}
	if ls, err := dump.ProcLimits(); err == nil {
		f.ProcLimits, f.HasProcLimits = ls, true
	}
	f.Crashpad, err = dump.CrashpadInfo()
	r.factError(StreamCrashpad, err)
	f.LastErrors = lastErrors(r.sys, r.threads, r.mem)
}

// factError keeps the error of a stream read for Facts when the stream is
// present but broken.
func (r *dumpStreams) factError(s Stream, err error) {
	if err != nil && !errors.Is(err, minidump.ErrNoStream) {
		r.factErrs = append(r.factErrs, &StreamError{Stream: s, Err: err})
	}
}

// lastErrors reads each thread's last error value from its TEB, on
// Windows only (rust-minidump reads the same offset on every OS, but only
// Windows has a TEB there). A partial thread or memory list still serves.
func lastErrors(si *minidump.SystemInfo, threads []minidump.Thread, mem *minidump.MemoryList) map[uint32]uint32 {
	if si == nil || si.Platform != minidump.PlatformWin32NT {
		return nil
	}
	word := 8
	if si.Arch == minidump.ArchX86 || si.Arch == minidump.ArchARM {
		word = 4
	}
	out := map[uint32]uint32{}
	for i := range threads {
		if code, ok := minidump.ThreadLastError(&threads[i], mem, word); ok {
			out[threads[i].ID] = code
		}
	}
	return out
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
	for more := true; more; {
		var line []byte
		line, b, more = bytes.Cut(b, []byte("\n"))
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
	}
	return n
}
