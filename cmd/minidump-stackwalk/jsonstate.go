package main

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/report"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// jsonInputFromState hands the processor's result to the JSON builder.
func jsonInputFromState(st *processor.ProcessState, haveSymbolPaths bool) *report.JSONInput {
	in := &report.JSONInput{
		Dump:             st.Dump,
		Stacks:           map[int][]*walker.Frame{},
		RequestingThread: st.RequestingThread,
		Symbols:          map[int]walker.SymbolStatus{},
		HaveSymbolPaths:  haveSymbolPaths,
		Errors:           st.Errors,
	}
	for _, t := range st.Threads {
		if t != nil && len(t.Frames) > 0 {
			in.Stacks[t.Index] = t.Frames
		}
	}
	for i, m := range st.Modules {
		if m != nil {
			in.Symbols[i] = m.Symbols
		}
	}
	if st.Dump == nil {
		// A microdump: no minidump file, so describe the process itself.
		p := &report.JSONProcess{
			Crashed:      st.Crashed,
			CrashReason:  st.CrashReason,
			CrashAddress: st.CrashAddress,
		}
		if st.System != nil {
			p.OS, p.OSVersion, p.CPU, p.CPUInfo = st.System.OS, st.System.OSVersion, st.System.CPU, st.System.CPUInfo
			p.CPUCount, p.Arch = st.System.CPUCount, st.System.Arch
		}
		for _, m := range st.Modules {
			if m != nil {
				p.Modules = append(p.Modules, m.Module)
			}
		}
		for _, t := range st.Threads {
			if t != nil {
				p.Threads = append(p.Threads, t.ID)
			}
		}
		in.Process = p
	}
	return in
}
