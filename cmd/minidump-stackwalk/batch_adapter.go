package main

// The one place where batch triage calls the processor, the report
// builders and the symbol loaders: processBatchInput turns one input path into
// the plain triage.Result the rest of batch*.go reads, and newSymbolLoader
// builds the uncached symbol loader under the run's shared cache.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"strconv"
	"sync"

	stackwalk "github.com/minidump-stackwalk/minidump-stackwalk"
	dumpinput "github.com/minidump-stackwalk/minidump-stackwalk/internal/input"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/mapfault"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/symsrv"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/symcache"
)

// processBatchInput reads and processes the dump, microdump or ELF core at
// path with the symbols of sup (nil: none) and returns its result, without
// signature and stack id. When jsonOut is not nil, the full JSON report
// (rust-minidump's schema) is written to it.
func processBatchInput(o *options, path string, sup symfile.Supplier, jsonOut io.Writer) triage.Result {
	res := triage.Result{Path: path, Status: triage.StatusOK}
	writeJSON := func(st *processor.ProcessState) {
		if jsonOut == nil {
			return
		}
		rf := &rustFlags{o: o}
		in := &input{Path: path, SymbolPaths: o.symbolPaths, State: st}
		if err := rf.writeJSON(jsonOut, in, slog.New(slog.DiscardHandler)); err != nil && res.Error == "" {
			res.Error = fmt.Sprintf("writing the JSON report: %v", err)
		}
	}
	d, err := stackwalk.OpenWith(path, stackwalk.Options{Sysroot: o.sysroot, ReadBuffer: o.readBuf.bytes()})
	if err != nil {
		res.Status, res.Error = triage.StatusInvalid, err.Error()
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.As(err, new(*fs.PathError)) {
			res.Status = triage.StatusUnreadable
		}
		writeJSON(processor.Unreadable(err))
		return res
	}
	defer d.Close()
	if d.Minidump != nil && d.Minidump.InMemory() {
		o.readBuf.fit(d.Minidump.Size()) // for the next dumps: this one holds the old buffer
	}
	st, err := d.Process(sup, o.budgeted(o.processorOptions(), nil)) // limits.go
	// A file truncated while it was read: processOne's recover reports it
	// and drops the dump's symbol files from the cache.
	mapfault.Throw(err)
	if !o.noDemangle {
		st.DemangleNames()
	}
	fillResult(&res, st)
	failures := st.Failures()
	if err != nil && len(failures) == 0 {
		failures = []error{err}
	}
	if len(failures) > 0 {
		res.Status, res.Error = triage.StatusPartial, errors.Join(failures...).Error()
	}
	writeJSON(st)
	return res
}

// dumpBuffer is a batch worker's buffer for the dumps it reads whole
// (stackwalk.Options.ReadBuffer, up to input.WholeBytes): reused from one
// dump to the next, once processBatchInput has written the dump's outputs
// and dropped its state, rather than a new slice for each dump (a third of
// the bytes a warm batch allocated, issue 29). It grows to the largest
// dump read, in steps of dumpBufferStep, so -j workers hold at most
// -j × input.WholeBytes. A worker's goroutine owns its buffer: a stuck
// input keeps it, and the worker that takes its place makes its own.
// walks is the worker's walker memory (processor.Options.Walks), owned
// the same way.
type dumpBuffer struct {
	b     []byte
	walks processor.WalkMemory
}

const dumpBufferStep = 64 << 10

// bytes is the buffer to read the next dump into (nil: allocate).
func (d *dumpBuffer) bytes() []byte {
	if d == nil {
		return nil
	}
	return d.b
}

// fit makes the buffer hold a dump of size bytes for the next dumps.
func (d *dumpBuffer) fit(size int64) {
	if d == nil || size <= int64(cap(d.b)) || size > dumpinput.WholeBytes {
		return
	}
	n := min((size+dumpBufferStep-1)/dumpBufferStep*dumpBufferStep, dumpinput.WholeBytes)
	d.b = make([]byte, n)
}

// fillResult copies the crash, the crashing thread's frames and the
// modules without symbols from st, naming modules and offsets as the JSON
// report does (processor.Module.Name, the offset of the frame's lookup
// address).
func fillResult(res *triage.Result, st *processor.ProcessState) {
	if st.System != nil {
		res.OS, res.CPU = st.System.OS, st.System.CPU
	}
	if i := st.MainModule; i >= 0 && i < len(st.Modules) && st.Modules[i] != nil {
		m := st.Modules[i]
		res.Product, res.ProductVersion = m.Name(), m.Version
	}
	res.Crashed = st.Crashed
	if st.Crashed {
		res.CrashReason = st.CrashReason
		res.CrashAddress = hexAddress(st.CrashAddress)
	}
	threads, requesting := st.BreakpadThreads()
	if requesting >= 0 {
		n := requesting
		res.CrashingThread = &n
		seen := map[triage.Module]bool{}
		res.Frames = make([]triage.Frame, 0, len(threads[requesting].Frames))
		for _, f := range threads[requesting].Frames {
			tf := triage.Frame{Function: f.Function, File: f.SourceFile, Line: f.SourceLine, Trust: f.Trust.ShortName(),
				Offset: hexAddress(f.Instruction)}
			if m := f.LoadedModule(); m != nil {
				tf.Module = m.Name()
				tf.Offset = hexAddress(f.Instruction - m.Base)
				tm := triage.Module{Name: tf.Module, Version: m.Version, DebugID: m.DebugID}
				if !seen[tm] {
					seen[tm] = true
					res.Modules = append(res.Modules, tm)
				}
			}
			res.Frames = append(res.Frames, tf)
		}
	}
	for _, m := range st.Modules {
		if m != nil && m.Symbols == processor.SymbolsMissing {
			res.MissingSymbols = append(res.MissingSymbols, m.DebugName()+" "+m.DebugID)
		}
	}
}

// hexAddress is fmt.Sprintf("0x%x", v) without fmt's work: a batch
// formats every crashing-stack frame's offset.
func hexAddress(v uint64) string {
	var b [18]byte
	return string(strconv.AppendUint(append(b[:0], "0x"...), v, 16))
}

// newSymbolLoader returns the uncached loader of o's symbol paths: the local
// ones, then the symbol servers' disk cache, then the servers. A server that
// gave no answer, trickled, streamed a file past the download bound or failed
// past the retries is not asked again in the run; --symbols-total-timeout
// bounds the downloads of the whole run, debuginfod's included (one
// fetch.Client, options.downloads). Download failures are printed on
// stderr, once per module (the cache asks once per module). Nil when there
// are no symbol paths.
func newSymbolLoader(o *options, stderr io.Writer) symcache.ContextLoader {
	local, urls := splitSymbolPaths(o.symbolPaths)
	elf, err := o.debuginfo.supplier(o) // modules' own ELF files (debuginfo.go)
	if err != nil {                     // check() has accepted the flags
		logf(stderr, "minidump-stackwalk: warning: ELF files not used: %v\n", err)
	}
	if len(local) == 0 && len(urls) == 0 && elf == nil {
		return nil
	}
	roots := local
	if len(urls) > 0 {
		roots = append(append([]string(nil), local...), o.symbolServer.cache)
	}
	index := o.index.indexDir(stderr) // shared by the run's workers; nil with --no-index
	budget := o.limits.decompressBudget()
	if index != nil {
		index.WithDecompressBudget(budget)
	}
	downloads := o.downloads(nil) // the run's bounds and servers' states, shared with debuginfod
	var mu sync.Mutex             // serialises warnings
	budgetTold := false
	fromServers := func(ctx context.Context, m symfile.ModuleKey) (*symfile.File, error) {
		opts := append(o.symbolServer.httpOptions(), symsrv.WithIndex(index), symsrv.WithDownloader(downloads),
			symsrv.WithContext(ctx)) // the dump's --timeout cancels its downloads
		hs, herr := symsrv.NewSupplier(urls, o.symbolServer.cache, opts...)
		if herr != nil {
			return nil, herr
		}
		f, err := hs.Symbols(m)
		if err != nil && !errors.Is(err, symfile.ErrNotFound) && !errors.As(err, new(*symfile.CorruptError)) {
			mu.Lock()
			for _, e := range joined(err) {
				switch {
				case errors.Is(e, symsrv.ErrServerDown): // named in the first failure's warning
				case errors.Is(e, symsrv.ErrDownloadBudget) && budgetTold:
				default:
					budgetTold = budgetTold || errors.Is(e, symsrv.ErrDownloadBudget)
					logf(stderr, "minidump-stackwalk: warning: symbols of %s: %v\n", moduleName(m), e)
				}
			}
			mu.Unlock()
		}
		return f, err
	}
	return func(ctx context.Context, m symfile.ModuleKey) (*symfile.File, error) {
		// A fresh DirSupplier holds on to nothing: the shared cache decides
		// how long a file lives.
		f, err := symfile.NewIndexedDirSupplier(index, roots...).WithDecompressBudget(budget).Symbols(m)
		if f == nil && errors.Is(err, symfile.ErrNotFound) && len(urls) > 0 {
			f, err = fromServers(ctx, m)
		}
		if f == nil && elf != nil && !errors.As(err, new(*symfile.CorruptError)) {
			// As symfile.ChainSupplier: after a miss or a failed download.
			oc := *o
			oc.walkCtx = ctx
			dumpELF, _ := oc.debuginfo.supplier(&oc) // the dump's view: ctx cancels its downloads
			if dumpELF == nil {
				dumpELF = elf
			}
			ef, eerr := dumpELF.Symbols(m)
			if ef != nil || !errors.Is(eerr, symfile.ErrNotFound) || errors.Is(err, symfile.ErrNotFound) {
				f, err = ef, eerr
			}
		}
		return f, err
	}
}
