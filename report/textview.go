package report

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
)

// textView is what Breakpad's text printers (human, -m, -b, -s, -d) derive
// from the one model, computed once per report: the threads Breakpad
// prints, numbered as it numbers them (the dump-writing thread left out),
// and which modules its module list holds. Every fact they print is read
// from the model itself (frames, modules, system, crash), escaped as it is
// printed (textescape.go).
type textView struct {
	st *processor.ProcessState
	// threads are the threads Breakpad prints (ProcessState.BreakpadThreads);
	// requesting indexes them: the crashed or requesting thread, -1 when none.
	threads    []*processor.Thread
	requesting int
	// listed is, by ProcessState.Modules index, whether the module is in
	// Breakpad's module list (ProcessState.ModuleOrder): only those name
	// frames.
	listed []bool
	// symbolize is ProcessState.Symbolize (a test gives its own).
	symbolize func(addr uint64) []processor.SourceInfo
}

// newTextView gives the text printers' view of st.
func newTextView(st *processor.ProcessState) *textView {
	v := &textView{st: st, symbolize: st.Symbolize}
	v.threads, v.requesting = st.BreakpadThreads()
	if v.requesting >= len(v.threads) {
		v.requesting = -1
	}
	v.listed = make([]bool, len(st.Modules))
	for _, i := range st.ModuleOrder {
		if i >= 0 && i < len(v.listed) {
			v.listed[i] = true
		}
	}
	return v
}

// system is the model's system information; empty values when the dump
// has none.
func (v *textView) system() *processor.SystemInfo {
	if v.st.System == nil {
		return &processor.SystemInfo{}
	}
	return v.st.System
}

// frameModule is the module Breakpad names a frame by: a loaded module of
// its module list (unloaded modules are listed apart), else nil.
func (v *textView) frameModule(f *processor.Frame) *processor.Module {
	m := f.LoadedModule()
	if m == nil || m.Index < 0 || m.Index >= len(v.listed) || !v.listed[m.Index] {
		return nil
	}
	return m
}

// modules calls fn for each module of Breakpad's module list, in its print
// order (by address).
func (v *textView) modules(fn func(m *processor.Module)) {
	for _, i := range v.st.ModuleOrder {
		fn(v.st.Modules[i])
	}
}

// mainBase returns the base address of the main module (the first of the
// file, Breakpad's), found again in the module list by its base address;
// false when the list holds no module at that base.
func (v *textView) mainBase() (uint64, bool) {
	st := v.st
	if st.MainModule < 0 || st.MainModule >= len(st.Modules) {
		return 0, false
	}
	base := st.Modules[st.MainModule].Base
	for _, i := range st.ModuleOrder {
		if st.Modules[i].Base == base {
			return base, true
		}
	}
	return 0, false
}

// processUptime is the dump's time minus the process's creation time, when
// both are known and ordered.
func (v *textView) processUptime() (uint32, bool) {
	st := v.st
	if !st.HasCreateTime || st.TimeDateStamp == 0 || st.ProcessCreateTime == 0 || st.TimeDateStamp < st.ProcessCreateTime {
		return 0, false
	}
	return st.TimeDateStamp - st.ProcessCreateTime, true
}

// crashParameters are the exception information words Breakpad prints.
func (v *textView) crashParameters() []uint64 {
	if v.st.Exception == nil {
		return nil
	}
	return v.st.Exception.Parameters
}

// threadSP is the stack pointer of the thread's context (-d).
func threadSP(t *processor.Thread) (uint64, bool) {
	if t.Context == nil {
		return 0, false
	}
	return t.Context.SP()
}

// wordSize is 4 for the 32-bit CPUs Breakpad's printer knows, 8 otherwise.
func wordSize(cpu string) int {
	switch cpu {
	case "x86", "arm", "riscv", "ppc", "mips", "sparc":
		return 4
	}
	return 8
}

// readWord reads a little-endian word of n bytes at addr from a region.
func readWord(base uint64, data []byte, addr uint64, n int) (uint64, bool) {
	if addr < base || addr-base >= uint64(len(data)) || uint64(len(data))-(addr-base) < uint64(n) {
		return 0, false
	}
	off := addr - base
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(data[off+uint64(i)])
	}
	return v, true
}
