package processor

// The arm/arm64 walker choice and the microdump path.

import (
	"errors"

	"github.com/minidump-stackwalk/minidump-stackwalk/microdump"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/arm"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/arm64"
)

// armWalker returns the walker for an arm or arm64 context.
func armWalker(a minidump.Arch) walker.Arch {
	if a == minidump.ArchARM {
		return arm.New()
	}
	return arm64.New()
}

// ErrNoMicrodumpContext is returned when a microdump has no usable CPU
// context (absent, malformed, or of an architecture without a walker);
// Breakpad's microdump_stackwalk then fails ("No stackwalker found").
var ErrNoMicrodumpContext = errors.New("processor: microdump has no usable CPU context")

// MicrodumpOptions gives the options under which ProcessMicrodump
// reproduces Breakpad's microdump_stackwalk: its walkers and module bases.
func MicrodumpOptions() Options {
	return Options{Mode: walker.Breakpad}
}

// ProcessMicrodump walks the one thread of an Android microdump. The state
// has no Dump; its single thread is the crashed, requesting thread; modules
// are d.Modules with their (possibly shrunk) lookup ranges, listed in that
// order (Breakpad's microdump_stackwalk lists them by lookup range).
func ProcessMicrodump(d *microdump.Dump, syms symfile.Supplier, opts Options) (*ProcessState, error) {
	st := &ProcessState{Status: StatusOK, RequestingThread: -1, MainModule: -1, HaveModules: true}
	st.GPU = GPUInfo{Version: d.GPU.Version, Vendor: d.GPU.Vendor, Renderer: d.GPU.Renderer}
	st.System = &SystemInfo{
		OS: d.OS, OSShort: d.OSShort, OSVersion: d.OSVersion,
		CPU: d.CPU, CPUCount: d.CPUCount, Arch: d.Arch,
	}
	st.Crashed = true
	st.CrashReason = d.CrashReason
	st.CrashAddress = d.CrashAddress

	// The modules in one allocation, not one per module: a 64 MiB
	// microdump lists 685,906 (docs/limits.md).
	n := len(d.Modules)
	loaded, ranges := make([]*walker.Module, n), make([][2]uint64, n)
	modules := make([]walker.Module, n)
	if n > 0 { // no modules: a nil list, as before
		st.ModuleOrder = make([]int, n)
	}
	for i, m := range d.Modules {
		modules[i] = walker.Module{
			Index: i, Base: m.Base, Size: m.Size,
			CodeFile: m.Name, CodeID: m.ID, DebugFile: m.Name, DebugID: m.ID,
			SymbolBase: m.Base,
		}
		loaded[i] = &modules[i]
		ranges[i] = [2]uint64{m.LookupBase, m.LookupEnd}
		st.ModuleOrder[i] = i // d.Modules is in Breakpad's order (by lookup range)
	}
	st.moduleRanges = walker.NewModuleMapRanges(loaded, ranges)
	if !opts.breakpad() {
		setImageBases(loaded)
	}
	st.Modules = newModules(loaded)
	if d.Context == nil || archWalker(d.Context.Arch) == nil {
		st.Status, st.fatal = StatusGettingThread, ErrNoMicrodumpContext
		return st, ErrNoMicrodumpContext
	}

	plan := st.newWalkPlan(syms, opts)
	plan.walks = "the walk"
	// Breakpad walks a microdump before it fills in the system info,
	// so its walkers see no OS.
	plan.env.OS = ""
	plan.env.Modules = st.moduleRanges
	plan.modules = loaded
	ctx := *d.Context
	th := &Thread{Index: 0, Status: ThreadWalked, Context: &ctx, StackBase: d.Stack.Base, Stack: d.Stack.Data}
	st.Threads = []*Thread{th}
	st.RequestingThread = 0 // the requesting thread of the processing budget too
	plan.jobs = []walkJob{{thread: th, ctx: &ctx, mem: &d.Stack}}
	st.walkThreads(plan, opts)
	return st, nil
}
