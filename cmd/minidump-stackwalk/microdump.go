package main

// Android microdump input, printed as Breakpad's
// microdump_stackwalk prints it.

import (
	"debug/elf"
	"fmt"
	"io"
	"os"

	"github.com/minidump-stackwalk/minidump-stackwalk/microdump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/report"
)

// processMicrodump prints the microdump named in o. It reports handled=false,
// having printed nothing, when the file is not a microdump.
func processMicrodump(o *options, group flagGroup, stdout, stderr io.Writer) (status int, handled bool) {
	data, ok := readMicrodump(o.dumpPath)
	if !ok {
		return 0, false
	}
	d, err := microdump.Parse(data)
	if err != nil {
		fmt.Fprintf(stderr, "minidump-stackwalk: %s: %v\n", o.dumpPath, err)
		return exitDump, true
	}
	for _, w := range d.Warnings {
		fmt.Fprintf(stderr, "minidump-stackwalk: %s: %s\n", o.dumpPath, w)
	}
	// Local symbol paths, then symbol servers, as for minidumps.
	syms, supplier := o.symbolSupplier(stderr)
	st, err := processor.ProcessMicrodump(d, supplier, o.budgeted(processor.MicrodumpOptions(), group)) // limits.go
	if err != nil {
		fmt.Fprintf(stderr, "minidump-stackwalk: %s: %v\n", o.dumpPath, err)
		writeFailure(group, stdout, &input{Path: o.dumpPath, State: st, Errs: []error{err}}) // --json status document
		return exitDump, true
	}
	if !o.noDemangle { // demangle C++/Rust names unless --no-demangle
		st.DemangleNames()
	}
	rep := toReport(st, syms)
	rep.Symbolize = demangleSymbolize(o, rep.Symbolize) // demangled -s names
	rep.GLVersion, rep.GLVendor, rep.GLRenderer = d.GPU.Version, d.GPU.Vendor, d.GPU.Renderer
	orderModules(rep, d)

	in := &input{Path: o.dumpPath, SymbolPaths: o.symbolPaths, State: st, Report: rep}
	if !writeOutput(o, group, in, stdout, stderr) {
		return exitDump, true
	}
	return exitOK, true
}

// readMicrodump returns the file's content when it looks like a microdump.
// A minidump or an ELF file (a core) is recognised by its first bytes
// without reading it all.
func readMicrodump(path string) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var head [4]byte
	if n, _ := io.ReadFull(f, head[:]); n == 4 && (string(head[:]) == "MDMP" || string(head[:]) == elf.ELFMAG) {
		return nil, false
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, microdump.MaxSize+1))
	if err != nil || len(data) > microdump.MaxSize || !microdump.IsMicrodump(data) {
		return nil, false
	}
	return data, true
}

// orderModules lists the modules in the microdump's map order, as Breakpad
// does: by lookup range, which after an Android shrink can differ from the
// order of base addresses toReport uses (microdump-x86: libsigchain.so lies
// inside libLLVM.so's mapping and is listed first).
func orderModules(rep *report.Process, d *microdump.Dump) {
	if len(rep.Modules) != len(d.Modules) {
		return // toReport merged duplicates; keep its order
	}
	index := map[[2]uint64]int{}
	for i, m := range rep.Modules {
		index[[2]uint64{m.Base, m.Size}] = i
	}
	mods := make([]report.Module, 0, len(rep.Modules))
	newAt := make([]int, len(rep.Modules))
	for _, m := range d.Modules {
		i, ok := index[[2]uint64{m.Base, m.Size}]
		if !ok {
			return
		}
		newAt[i] = len(mods)
		mods = append(mods, rep.Modules[i])
	}
	oldAt := map[*report.Module]int{}
	for i := range rep.Modules {
		oldAt[&rep.Modules[i]] = i
	}
	for t := range rep.Threads {
		for f := range rep.Threads[t].Frames {
			fr := &rep.Threads[t].Frames[f]
			if i, ok := oldAt[fr.Module]; ok {
				fr.Module = &mods[newAt[i]]
			}
		}
	}
	rep.Modules = mods
}
