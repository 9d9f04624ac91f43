package main

// This file is helper H's: a Linux ELF core file given as the input is
// converted to a minidump and walked like one.
//
// The conversion is cmd/core2md's. That code lives in package main of
// cmd/core2md, which cannot be imported, so coreToMinidump below follows the
// same steps with the same library calls (coredump, internal/synth). Only
// the common case is covered here: core2md's --module, --sysroot,
// --no-disk and --os-version are left to core2md (a qemu-user core, which
// holds no program text, needs --module to name the program). If the
// conversion moves into a library package, this file should call it instead.

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// coreOptions bound a conversion; the defaults are core2md's.
type coreOptions struct {
	stackLimit uint64 // bytes of stack kept per thread, from SP (less the red zone) up
	ipWindow   uint64 // bytes kept around each instruction pointer
	maxMemory  uint64 // bound on all memory copied into the dump; 0 means none
	readDisk   bool   // read module files named by absolute paths in the core for their ids
}

func defaultCoreOptions() coreOptions {
	return coreOptions{stackLimit: 256 << 10, ipWindow: 256, maxMemory: 512 << 20, readDisk: true}
}

// isELFCore reports whether the file at path starts like an ELF core file
// (ELF magic and e_type ET_CORE, in the file's byte order).
func isELFCore(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var h [18]byte
	if _, err := io.ReadFull(f, h[:]); err != nil || string(h[:4]) != elf.ELFMAG {
		return false
	}
	var order binary.ByteOrder = binary.LittleEndian
	if elf.Data(h[elf.EI_DATA]) == elf.ELFDATA2MSB {
		order = binary.BigEndian
	}
	return elf.Type(order.Uint16(h[16:])) == elf.ET_CORE
}

// processCore walks the ELF core file named in o: it converts it to a
// minidump in a temporary file and processes that. It reports
// handled=false, having done nothing, when the file is not an ELF core.
func processCore(o *options, group flagGroup, stdout, stderr io.Writer) (status int, handled bool) {
	if !isELFCore(o.dumpPath) {
		return 0, false
	}
	data, err := convertCoreFile(o.dumpPath, defaultCoreOptions())
	if err != nil {
		fmt.Fprintf(stderr, "minidump-stackwalk: %s: %v\n", o.dumpPath, err)
		writeOpenFailure(group, stdout, o.dumpPath, err) // helper G: --json prints a status document
		return exitDump, true
	}
	// A file rather than memory: the JSON report reads streams from the path.
	dir, err := os.MkdirTemp("", "minidump-stackwalk-core-")
	if err != nil {
		fmt.Fprintf(stderr, "minidump-stackwalk: %s: converted dump: %v\n", o.dumpPath, err)
		return exitDump, true
	}
	defer os.RemoveAll(dir)
	dump := filepath.Join(dir, filepath.Base(o.dumpPath)+".dmp")
	if err := os.WriteFile(dump, data, 0o600); err != nil {
		fmt.Fprintf(stderr, "minidump-stackwalk: %s: converted dump: %v\n", o.dumpPath, err)
		return exitDump, true
	}
	converted := *o
	converted.dumpPath = dump
	return process(&converted, group, stdout, stderr), true
}

// convertCoreFile reads the core at path and returns the minidump bytes.
func convertCoreFile(path string, opt coreOptions) ([]byte, error) {
	core, err := coredump.Open(path)
	if err != nil {
		return nil, fmt.Errorf("core file: %w", err)
	}
	defer core.Close()
	data, err := coreToMinidump(core, opt)
	if err != nil {
		return nil, fmt.Errorf("converting the core: %w", err)
	}
	return data, nil
}

// Auxiliary vector entry types.
const (
	atPHDR        = 3
	atEntry       = 9
	atHWCap       = 16
	atExecFn      = 31
	atSysinfoEhdr = 33
)

// faultSignal lists the signals whose si_addr is a faulting address:
// SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGSEGV.
func faultSignal(sig int32) bool {
	switch sig {
	case 4, 5, 7, 8, 11:
		return true
	}
	return false
}

// coreToMinidump writes a minidump for core, as core2md does: every
// thread with its stack, the signal of the crashing thread, memory around
// each instruction pointer, the modules of NT_FILE, the vDSO and the main
// executable with their build ids, and the Linux auxv, maps, cmdline and
// process id streams.
func coreToMinidump(core *coredump.File, opt coreOptions) ([]byte, error) {
	b := synth.New(core.Arch, synth.Linux)
	if core.Arch == minidump.ArchARM {
		if hw, ok := core.AuxvValue(atHWCap); ok {
			b.Sys.ARMHWCaps = uint32(hw)
		}
	}

	budget := opt.maxMemory
	if budget == 0 {
		budget = ^uint64(0)
	}
	var stacks []span
	for _, t := range core.Threads {
		ctx := t.Context
		ctx.Flags = 0
		sp, _ := ctx.SP()
		start := sp
		if core.Arch == minidump.ArchAMD64 {
			start -= 128 // the red zone below rsp holds live data of leaf functions
		}
		start &^= 15
		if start > sp { // wrapped
			start = sp
		}
		n := core.Readable(start, min(opt.stackLimit, budget))
		budget -= n
		stack := make([]byte, n)
		if n > 0 {
			if err := core.ReadMemory(start, stack); err != nil {
				return nil, fmt.Errorf("thread %d stack: %w", t.PID, err)
			}
			stacks = append(stacks, span{start, start + n})
		}
		th := b.AddThread(t.PID, ctx, start, stack)
		th.Extra = synth.ContextExtra{CS: t.CS, DS: t.DS, ES: t.ES, FS: t.FS, GS: t.GS, SS: t.SS}
		switch core.Arch {
		case minidump.ArchAMD64:
			th.Extra.EFlags = uint32(t.Status)
		case minidump.ArchARM, minidump.ArchARM64:
			th.Extra.CPSR = uint32(t.Status)
		}
	}

	crash := core.Threads[core.CrashThread()] // coredump rejects cores without threads
	if si := crash.SigInfo; si != nil && si.Signo != 0 {
		e := b.SetException(crash.PID, uint32(si.Signo), 0)
		e.Flags = uint32(si.Code)
		if faultSignal(si.Signo) {
			e.Address = si.Addr
		}
	} else {
		b.SetException(crash.PID, uint32(crash.CurSig), 0)
	}

	// Memory around each instruction pointer, outside the stacks and without
	// overlaps (Breakpad rejects a memory list with overlapping ranges).
	var windows []span
	for _, t := range core.Threads {
		ip, ok := t.Context.IP()
		if !ok || opt.ipWindow == 0 {
			continue
		}
		half := opt.ipWindow / 2
		lo := ip - half
		if lo > ip {
			lo = 0
		}
		if core.Readable(lo, ip-lo) < ip-lo {
			lo = ip
		}
		n := core.Readable(lo, min(ip+half-lo, budget))
		budget -= n
		if n > 0 {
			windows = append(windows, span{lo, lo + n})
		}
	}
	stacks = unionSpans(stacks)
	for _, w := range unionSpans(windows) {
		for _, part := range subtractSpans(w, stacks) {
			buf := make([]byte, part.hi-part.lo)
			if err := core.ReadMemory(part.lo, buf); err != nil {
				return nil, fmt.Errorf("memory at %#x: %w", part.lo, err)
			}
			b.AddMemory(part.lo, buf)
		}
	}

	// Modules.
	for _, m := range coreModules(core) {
		addCoreModule(b, core, opt, m.name, m.lo, m.hi, nil)
	}
	if base, ok := core.AuxvValue(atSysinfoEhdr); ok && base != 0 {
		if img, err := coredump.ImageInMemory(core, base, core.Is64); err == nil {
			addCoreModule(b, core, opt, "linux-gate.so", base, base+img.LoadEnd-img.LoadStart, img)
		}
	}
	// Without NT_FILE (qemu-user cores) the main executable is found by its
	// program headers at AT_PHDR, else as the executable segment holding the
	// entry point, without an identifier.
	if phdr, ok := core.AuxvValue(atPHDR); ok && !coveredByModule(b, phdr) {
		base := phdr &^ 0xfff
		if img, err := coredump.ImageInMemory(core, base, core.Is64); err == nil {
			addCoreModule(b, core, opt, coreExecutableName(core), base, base+img.LoadEnd-img.LoadStart, img)
		} else if entry, ok := core.AuxvValue(atEntry); ok {
			for _, s := range segmentsOverlapping(core.Segments, entry, entry+1, 1) {
				if s.Flags&1 != 0 && s.Vaddr <= entry {
					addCoreModule(b, core, opt, coreExecutableName(core), s.Vaddr, s.Vaddr+s.Memsz, nil)
				}
			}
		}
	}

	// Linux streams.
	if core.Auxv != nil {
		b.SetLinuxAuxv(core.Auxv)
	}
	b.SetLinuxMaps(coreLinuxMaps(core))
	if ps := core.PSInfo; ps != nil {
		if args := strings.Fields(ps.PSArgs); len(args) > 0 {
			b.SetLinuxCmdLine(args...)
		}
		if ps.PID != 0 {
			b.SetMiscInfo(synth.MiscInfo{Size: 24, Flags1: synth.MiscProcessID, ProcessID: ps.PID})
		}
	}
	return b.Bytes()
}

func coveredByModule(b *synth.Builder, addr uint64) bool {
	for _, m := range b.Modules() {
		if m.Base <= addr && addr-m.Base < uint64(m.Size) {
			return true
		}
	}
	return false
}

// coreExecutableName is the AT_EXECFN string from the core's memory, else
// the NT_PRPSINFO file name.
func coreExecutableName(core *coredump.File) string {
	if p, ok := core.AuxvValue(atExecFn); ok {
		buf := make([]byte, 256)
		n := core.Readable(p, uint64(len(buf)))
		if n > 0 && core.ReadMemory(p, buf[:n]) == nil {
			if i := bytes.IndexByte(buf[:n], 0); i > 0 {
				return string(buf[:i])
			}
		}
	}
	if core.PSInfo != nil && core.PSInfo.FName != "" {
		return core.PSInfo.FName
	}
	return "main"
}

// addCoreModule adds a module and its identifier: the build id from the
// image in memory, else from the file on disk, else Breakpad's .text hash of
// the file on disk.
func addCoreModule(b *synth.Builder, core *coredump.File, opt coreOptions, name string, lo, hi uint64, img *coredump.Image) {
	size := min(hi-lo, 0xffffffff)
	m := b.AddModule(name, lo, uint32(size))
	if img == nil || img.BuildID == nil {
		if mem, err := coredump.ImageInMemory(core, lo, core.Is64); err == nil && mem.BuildID != nil {
			img = mem
		}
	}
	if (img == nil || (img.BuildID == nil && img.TextHash == nil)) && opt.readDisk && filepath.IsAbs(name) {
		if disk, err := coredump.ImageFile(name); err == nil {
			img = disk
		}
	}
	switch {
	case img == nil:
	case img.BuildID != nil:
		m.SetBuildID(img.BuildID)
	case img.TextHash != nil:
		m.SetBuildID(img.TextHash)
	}
}

// maxCoreModules bounds the modules taken from NT_FILE (real processes map
// a few hundred).
const maxCoreModules = 1 << 16

type coreModule struct {
	name   string
	lo, hi uint64
}

// coreModules groups NT_FILE entries into modules: a module starts at the
// mapping of file offset 0 and extends over the following mappings of the
// same file. Files none of whose mappings is executable (data files,
// locale archives) are left out when the core says which mappings are.
func coreModules(core *coredump.File) []coreModule {
	files := append([]coredump.MappedFile(nil), core.Files...)
	sort.SliceStable(files, func(i, j int) bool { return files[i].Start < files[j].Start })
	var mods []coreModule
	var exec, known []bool
	for _, f := range files {
		k := len(mods) - 1
		switch {
		case f.Offset == 0:
			mods = append(mods, coreModule{f.Name, f.Start, f.End})
			exec = append(exec, false)
			known = append(known, false)
			k++
		case k >= 0 && mods[k].name == f.Name:
			mods[k].hi = max(mods[k].hi, f.End)
		default:
			continue
		}
		for _, s := range segmentsOverlapping(core.Segments, f.Start, f.End, 64) {
			known[k] = true
			if s.Flags&1 != 0 {
				exec[k] = true
			}
		}
	}
	var out []coreModule
	for i, m := range mods {
		if (exec[i] || !known[i]) && len(out) < maxCoreModules {
			out = append(out, m)
		}
	}
	return out
}

// span is the address interval [lo, hi).
type span struct{ lo, hi uint64 }

// unionSpans returns the union of in as disjoint spans sorted by lo.
func unionSpans(in []span) []span {
	sort.Slice(in, func(i, j int) bool { return in[i].lo < in[j].lo })
	var out []span
	for _, s := range in {
		if k := len(out); k > 0 && s.lo <= out[k-1].hi {
			out[k-1].hi = max(out[k-1].hi, s.hi)
			continue
		}
		out = append(out, s)
	}
	return out
}

// subtractSpans returns the parts of w not covered by cut, which is sorted
// by lo and disjoint.
func subtractSpans(w span, cut []span) []span {
	var parts []span
	i := sort.Search(len(cut), func(i int) bool { return cut[i].hi > w.lo })
	for ; i < len(cut) && cut[i].lo < w.hi; i++ {
		if cut[i].lo > w.lo {
			parts = append(parts, span{w.lo, cut[i].lo})
		}
		w.lo = max(w.lo, cut[i].hi)
	}
	if w.lo < w.hi {
		parts = append(parts, w)
	}
	return parts
}

// segmentsOverlapping returns the segments (sorted by Vaddr) that overlap
// [lo, hi), at most limit of them.
func segmentsOverlapping(segs []coredump.Segment, lo, hi uint64, limit int) []coredump.Segment {
	i := sort.Search(len(segs), func(i int) bool { return segs[i].Vaddr+segs[i].Memsz > lo })
	j := i
	for j < len(segs) && segs[j].Vaddr < hi && j-i < limit {
		j++
	}
	return segs[i:j]
}

// coreLinuxMaps renders the core's PT_LOAD segments in /proc/pid/maps form,
// naming each by the NT_FILE entry that covers it.
func coreLinuxMaps(core *coredump.File) string {
	files := append([]coredump.MappedFile(nil), core.Files...)
	sort.Slice(files, func(i, j int) bool { return files[i].Start < files[j].Start })
	width := 8
	if core.Is64 {
		width = 12
	}
	var sb strings.Builder
	for _, s := range core.Segments {
		perm := []byte("---p")
		if s.Flags&4 != 0 {
			perm[0] = 'r'
		}
		if s.Flags&2 != 0 {
			perm[1] = 'w'
		}
		if s.Flags&1 != 0 {
			perm[2] = 'x'
		}
		var off uint64
		name := ""
		if i := sort.Search(len(files), func(i int) bool { return files[i].End > s.Vaddr }); i < len(files) && files[i].Start <= s.Vaddr {
			off, name = files[i].Offset+(s.Vaddr-files[i].Start), files[i].Name
		}
		fmt.Fprintf(&sb, "%0*x-%0*x %s %08x 00:00 0", width, s.Vaddr, width, s.Vaddr+s.Memsz, perm, off)
		if name != "" {
			sb.WriteString(strings.Repeat(" ", 10) + name)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}
