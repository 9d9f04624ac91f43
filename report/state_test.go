package report

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
)

// The printers' tests build the one model, processor.ProcessState, as the
// processor leaves it: newState gives a state of a CPU with a module list,
// every module listed in the given order (ModuleOrder), the first one the
// main module when main is set.

func newState(cpu string, main bool, modules ...*processor.Module) *processor.ProcessState {
	st := &processor.ProcessState{System: &processor.SystemInfo{CPU: cpu}, RequestingThread: -1, MainModule: -1,
		HaveModules: len(modules) > 0}
	for i, m := range modules {
		m.Index = i
		st.Modules = append(st.Modules, m)
		st.ModuleOrder = append(st.ModuleOrder, i)
	}
	if main && len(modules) > 0 {
		st.MainModule = 0
	}
	return st
}

// withFrames adds a thread holding frames to st and returns it.
func withFrames(st *processor.ProcessState, frames ...*processor.Frame) *processor.Thread {
	t := &processor.Thread{Index: len(st.Threads), Frames: frames}
	st.Threads = append(st.Threads, t)
	return t
}

// ctxOf is a context of arch with the named registers valid.
func ctxOf(arch minidump.Arch, regs map[string]uint64) minidump.Context {
	c := minidump.NewContext(arch)
	for name, v := range regs {
		if !c.Set(name, v) {
			panic("unknown register " + name)
		}
	}
	return c
}
