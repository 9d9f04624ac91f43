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
	return in
}
