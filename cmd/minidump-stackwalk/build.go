package main

import (
	"slices"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/report"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// recordingSupplier remembers the symbol files the processor loaded, so that
// the -s and -d listings can name addresses with exactly those files, as
// Breakpad's resolver does after the walk.
type recordingSupplier struct {
	sup    symfile.Supplier
	mu     sync.Mutex
	loaded map[symfile.ModuleKey]*symfile.File
}

func newRecordingSupplier(s symfile.Supplier) *recordingSupplier {
	return &recordingSupplier{sup: s, loaded: map[symfile.ModuleKey]*symfile.File{}}
}

// Symbols implements symfile.Supplier.
func (r *recordingSupplier) Symbols(m symfile.ModuleKey) (*symfile.File, error) {
	f, err := r.sup.Symbols(m)
	if f != nil {
		r.mu.Lock()
		r.loaded[m] = f
		r.mu.Unlock()
	}
	return f, err
}

// loadedSource is a walker.SymbolSource over the files already loaded.
type loadedSource struct{ r *recordingSupplier }

func (s loadedSource) Symbols(m *walker.Module) (*symfile.File, walker.SymbolStatus) {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	if f := s.r.loaded[m.Key()]; f != nil {
		return f, walker.SymbolsLoaded
	}
	return nil, walker.SymbolsNotTried
}

// toReport converts the processor's state into what the Breakpad printers
// show. syms may be nil (no symbol paths).
func toReport(st *processor.ProcessState, syms *recordingSupplier) *report.Process {
	p := &report.Process{RequestingThread: -1, MainModule: -1}
	if s := st.System; s != nil {
		p.OS, p.OSVersion, p.CPU, p.CPUInfo, p.CPUCount = s.OS, s.OSVersion, s.CPU, s.CPUInfo, s.CPUCount
	}
	p.Crashed, p.CrashReason, p.CrashAddress, p.Assertion = st.Crashed, st.CrashReason, st.CrashAddress, st.Assertion
	if st.Exception != nil {
		for _, v := range st.Exception.Parameters {
			p.CrashParameters = append(p.CrashParameters, report.CrashParameter{Value: v})
		}
	}
	p.TimeDateStamp = st.TimeDateStamp
	if st.HasCreateTime {
		p.ProcessCreateTime = st.ProcessCreateTime
	}

	// Breakpad lists the modules of its range map by address
	// (processor.ProcessState.ModuleOrder: exact duplicates and modules it
	// could not store are left out); the main module is the first of the
	// file, found again by its base address.
	p.HaveModules = st.HaveModules
	byWalker := map[*walker.Module]int{}
	for _, i := range st.ModuleOrder {
		ms := st.Modules[i]
		m := ms.Module
		byWalker[m] = len(p.Modules)
		p.Modules = append(p.Modules, report.Module{
			CodeFile: m.CodeFile, Version: m.Version, DebugFile: m.DebugFile, DebugID: m.DebugID,
			Base: m.Base, Size: m.Size,
			MissingSymbols: ms.NoSymbolsWarning, CorruptSymbols: ms.CorruptSymbolsWarning,
		})
	}
	if st.MainModule >= 0 && st.MainModule < len(st.Modules) {
		base := st.Modules[st.MainModule].Module.Base
		p.MainModule = slices.IndexFunc(p.Modules, func(m report.Module) bool { return m.Base == base })
	}
	moduleOf := func(m *walker.Module) *report.Module {
		if i, ok := byWalker[m]; ok {
			return &p.Modules[i]
		}
		return nil // unloaded modules are not Breakpad frame modules
	}

	threads, requesting := st.BreakpadThreads()
	p.RequestingThread = requesting
	for _, th := range threads {
		rt := report.Thread{StackBase: th.StackBase, Stack: th.Stack}
		if th.Context != nil {
			rt.SP, rt.SPValid = th.Context.SP()
		}
		for _, f := range th.Frames {
			rt.Frames = append(rt.Frames, report.Frame{
				Context:        f.Context,
				AllRegisters:   f.Trust == walker.TrustContext,
				ReturnAddress:  f.ReturnAddress(),
				Module:         moduleOf(f.Module),
				Function:       f.Function,
				FunctionBase:   f.FunctionBase,
				SourceFile:     f.SourceFile,
				SourceLine:     f.SourceLine,
				SourceLineBase: f.SourceLineBase,
				Trust:          f.Trust.String(),
				Inline:         f.Trust == walker.TrustInline,
			})
		}
		p.Threads = append(p.Threads, rt)
	}

	if syms != nil {
		w := walker.NewWalker(&walker.Env{Modules: st.ModuleMap, Symbols: loadedSource{syms}})
		p.Symbolize = func(addr uint64) []report.SourceInfo {
			f := &walker.Frame{Instruction: addr}
			inlines, _ := w.Symbolize(f, true)
			if f.Function == "" {
				return nil
			}
			out := []report.SourceInfo{{Function: f.Function, File: f.SourceFile, Line: f.SourceLine, LineBase: f.SourceLineBase}}
			for _, in := range inlines {
				out = append(out, report.SourceInfo{Function: in.Function, File: in.SourceFile, Line: in.SourceLine, LineBase: in.SourceLineBase})
			}
			return out
		}
	}
	return p
}
