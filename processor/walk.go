package processor

// The walk phase, shared by minidumps (Process) and microdumps
// (ProcessMicrodump): the threads' walks run under the processing budget,
// their problems are noted, and each module gets its symbol status.

import (
	"fmt"
	"runtime"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/mapfault"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// walkPlan is what the walk phase needs from a read phase.
type walkPlan struct {
	// env is the walkers' environment; Memory and MaxFrames are set per walk.
	env  walker.Env
	jobs []walkJob
	// modules are the walk's modules, parallel to ProcessState.Modules.
	modules []*walker.Module
	// source is the symbol cache of the walks; nil without a supplier.
	source *symbolCache
	// walks names the walks in the note of a time-out: "the walks" of a
	// minidump's threads, "the walk" of a microdump's one thread.
	walks string
}

// walkJob is one thread to walk: where its walk starts and the stack
// memory it reads.
type walkJob struct {
	thread *Thread
	ctx    *minidump.Context
	mem    walker.Memory
}

// newWalkPlan returns a plan with the environment every processing shares
// and the symbol cache of syms (nil: no symbols), which it sets in st for
// Symbolize.
func (st *ProcessState) newWalkPlan(syms symfile.Supplier, opts Options) *walkPlan {
	p := &walkPlan{walks: "the walks"}
	p.env = walker.Env{
		MaxFrames:  opts.MaxFrames,
		MaxScanned: opts.MaxScanned,
		Mode:       opts.Mode,
		Trace:      opts.Trace,
	}
	if st.System != nil {
		p.env.OS = st.System.OSShort
	}
	if syms != nil {
		p.source = newSymbolCache(syms)
		st.symbols = p.source
		p.env.Symbols = p.source
	}
	return p
}

// walkThreads runs the plan's walks (in parallel where it pays), each
// within its frame cap and all within the time budget, and records the
// stacks, the problems and the modules' symbol status in st.
func (st *ProcessState) walkThreads(p *walkPlan, opts Options) {
	jobs := p.jobs
	requesting := make([]bool, len(jobs))
	for j := range jobs {
		requesting[j] = jobs[j].thread.Index == st.RequestingThread
	}
	perThread, totalFrames, maxTime := opts.bounds()
	caps := frameCaps(requesting, perThread, totalFrames)
	deadline := time.Now().Add(maxTime)
	timedOut := make([]bool, len(jobs))

	results := make([]*walker.Stack, len(jobs))
	// Each worker walks with its own walker.Walks, whose frames are
	// reused from walk to walk: a walk's frames are copied into the
	// thread's (newFrames, in the worker's slab) before its next walk.
	walk := func(j int, mem *walkWorker) {
		arch := archWalker(jobs[j].ctx.Arch)
		if arch == nil {
			jobs[j].thread.Status = ThreadNoWalker
			return
		}
		e := p.env
		e.Memory = jobs[j].mem
		e.MaxFrames = caps[j]
		timed := newTimedArch(arch, deadline, opts.Context)
		e.Walks = &mem.walks
		r := walker.Walk(&e, timed, *jobs[j].ctx)
		jobs[j].thread.Frames = st.newFrames(r.Frames, mem)
		r.Frames = nil // walks' memory, no longer the walk's
		mem.walks.Done()
		results[j] = r
		timedOut[j] = timed.expired
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
		if p.env.Symbols == nil && p.env.Native == nil && len(jobs) <= maxInlineWalks {
			workers = 1
		}
	}
	workers = min(workers, len(jobs))
	if workers <= 1 {
		mem := opts.Walks.get(1)[0]
		for j := range jobs {
			walk(j, mem)
		}
	} else {
		walkParallel(len(jobs), opts.Walks.get(workers), walk)
	}

	var noSyms, corrupt []*walker.Module
	late := repeatedNotes{what: "walks stopped by the time budget"}
	capped := repeatedNotes{what: "stacks cut at their frame cap"}
	for j, r := range results {
		if r == nil {
			continue
		}
		th := jobs[j].thread
		th.Truncated = r.Truncated || timedOut[j]
		th.WalkEnd = r.End
		switch {
		case timedOut[j]:
			why := fmt.Sprintf("%s took over %v", p.walks, maxTime)
			if opts.Context != nil && opts.Context.Err() != nil {
				why = "processing was cancelled (batch --timeout)"
			}
			late.add(fmt.Errorf("thread %d: walk stopped after %d frames: %s", th.Index, len(th.Frames), why))
		case r.Truncated:
			capped.add(frameCapError(th.Index, caps[j]))
		}
		noSyms = append(noSyms, r.NoSymbols...)
		corrupt = append(corrupt, r.CorruptSymbols...)
	}
	late.flush(st, StreamThreadList)
	capped.flush(st, StreamThreadList)
	for i, m := range p.modules {
		ms := st.Modules[i]
		if p.source != nil {
			ms.Symbols, ms.SymbolFile = p.source.status(m)
		}
		ms.NoSymbolsWarning = sameIdentity(noSyms, m)
		ms.CorruptSymbolsWarning = !ms.NoSymbolsWarning && sameIdentity(corrupt, m)
	}
}

// walkParallel runs walk(0..n-1) on len(mem) goroutines, each with its
// own memory. A panic in one of
// them is raised again here, after the others finished, so that the
// caller can recover it (mapfault.Group): a fault reading a memory-mapped
// dump or symbol file (the file truncated meanwhile) as the
// *mapfault.Error the caller's boundary turns into an error, any other (a
// bug) as a *mapfault.Panic with the worker's stack.
func walkParallel(n int, mem []*walkWorker, walk func(int, *walkWorker)) {
	var g mapfault.Group
	next := make(chan int)
	for _, w := range mem {
		g.Go(func() {
			defer func() {
				for range next { // after a panic: let the sender finish
				}
			}()
			for j := range next {
				walk(j, w)
			}
		})
	}
	for j := range n {
		next <- j
	}
	close(next)
	g.Wait()
}

// sameIdentity reports whether list holds a module with m's debug file and
// identifier (Breakpad's printer matches its warning lists that way).
func sameIdentity(list []*walker.Module, m *walker.Module) bool {
	for _, x := range list {
		if x.DebugFile == m.DebugFile && x.DebugID == m.DebugID {
			return true
		}
	}
	return false
}
