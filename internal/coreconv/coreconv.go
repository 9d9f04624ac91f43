package coreconv

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Options control a conversion.
type Options struct {
	StackLimit uint64 // bytes of stack kept per thread, from SP (less the amd64 red zone) up
	IPWindow   uint64 // bytes kept around each instruction pointer
	// CodeWindow is the bytes kept around each stack word and register
	// value that points into an executable segment of a module (half before
	// it, half from it on, clipped to the segment), from the core or else
	// from the module's file; 0 keeps none.
	CodeWindow uint64
	Modules    []Module // modules named by the user (core2md --module)
	Sysroot    string   // root that module paths from the core are read under; they may not leave it
	NoDisk     bool     // never read module files from disk
	OSVersion  string   // CSD version string for SystemInfo
	// MaxMemory bounds the memory bytes copied into the dump (stacks and
	// instruction windows together), so a hostile core with very many
	// threads cannot make the output huge. 0 means no bound.
	MaxMemory uint64
	// Like shapes the dump as a crash reporter's client writes it (core2md
	// --like): its memory reduced to what that client keeps (Shape), with
	// Crashpad's 512-byte windows around the crashing context's registers
	// taken from the core or the module files first.
	Like Client
}

// DefaultOptions returns core2md's defaults: 256 KiB of stack per thread,
// 256 bytes around each instruction pointer, 128 around each code pointer in
// the stacks and registers, at most 512 MiB of memory, module files read from disk when
// the core lacks their identifiers or code.
func DefaultOptions() Options {
	return Options{StackLimit: 256 << 10, IPWindow: 256, CodeWindow: 128, MaxMemory: 512 << 20}
}

// Module is an ELF module loaded in the process, named by the user: a path
// and an optional load address.
type Module struct {
	Path    string
	Base    uint64
	HasBase bool
}

// ParseModule parses core2md's --module argument, path[@0xBASE].
func ParseModule(s string) (Module, error) {
	if i := strings.LastIndexByte(s, '@'); i > 0 {
		base, err := strconv.ParseUint(strings.TrimPrefix(s[i+1:], "0x"), 16, 64)
		if err != nil {
			return Module{}, fmt.Errorf("--module %q: bad base address: %w", s, err)
		}
		return Module{Path: s[:i], Base: base, HasBase: true}, nil
	}
	return Module{Path: s}, nil
}

// faultSignal reports whether si_addr is a faulting address for the signal:
// SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGSEGV.
func faultSignal(sig int32) bool {
	switch sig {
	case 4, 5, 7, 8, 11:
		return true
	}
	return false
}

const (
	atPHDR        = 3
	atEntry       = 9
	atExecFn      = 31
	atHWCap       = 16
	atSysinfoEhdr = 33
)

// Convert returns a minidump for core: every thread with its stack, the
// signal of the crashing thread, memory around each instruction pointer and
// around each code pointer on the stacks, the modules of NT_FILE, the vDSO,
// the modules of opt.Modules and the main executable with their build ids,
// and the Linux auxv, maps, cmdline and process id streams.
func Convert(core *coredump.File, opt Options) ([]byte, error) {
	b := synth.New(core.Arch, synth.Linux)
	b.SetCSDVersion(opt.OSVersion)
	if core.Arch == minidump.ArchARM {
		if hw, ok := core.AuxvValue(atHWCap); ok {
			b.Sys.ARMHWCaps = uint32(hw)
		}
	}

	budget := opt.MaxMemory
	if budget == 0 {
		budget = ^uint64(0)
	}
	stacks, err := addThreads(b, core, opt, &budget)
	if err != nil {
		return nil, err
	}
	setException(b, core)

	// NT_FILE's entries sorted by start address serve both the modules and
	// the maps stream.
	var code codeModules
	defer code.close()
	files := append([]coredump.MappedFile(nil), core.Files...)
	sort.SliceStable(files, func(i, j int) bool { return files[i].Start < files[j].Start })
	if err := addModules(b, core, opt, files, &code); err != nil {
		return nil, err
	}

	// Memory around each instruction pointer and around each code pointer
	// on the stacks, outside the stacks and without overlaps: Breakpad
	// rejects a memory list with overlapping ranges.
	ipChunks := ipWindows(core, opt, &code, &budget)
	if opt.Like == ClientCrashpad {
		ipChunks = append(ipChunks, registerWindows(core, &code, &budget)...)
	}
	var stackIntervals []interval
	for _, st := range stacks {
		stackIntervals = append(stackIntervals, interval{st.start, st.start + uint64(len(st.data))})
	}
	taken := union(stackIntervals)
	ipChunks = subtractChunks(disjoint(ipChunks), taken)
	for _, c := range ipChunks {
		taken = append(taken, interval{c.lo, c.hi})
	}
	taken = union(taken)
	codeChunks := subtractChunks(disjoint(codeWindows(core, &code, stacks, opt, &budget)), taken)
	memory := append(ipChunks, codeChunks...)
	sort.Slice(memory, func(i, j int) bool { return memory[i].lo < memory[j].lo })
	if err := addMemory(b, core, memory); err != nil {
		return nil, err
	}
	addLinuxStreams(b, core, files)
	data, err := b.Bytes()
	if err != nil || opt.Like == ClientAll {
		return data, err
	}
	return Shape(data, opt.Like)
}

// addThreads adds the core's threads with their stacks (from the stack
// pointer, or from above a guard page it is in, up to opt.StackLimit),
// taking their size from *budget.
func addThreads(b *synth.Builder, core *coredump.File, opt Options, budget *uint64) ([]threadStack, error) {
	var stacks []threadStack
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
		n := core.Readable(start, min(opt.StackLimit, *budget))
		if n == 0 {
			if above, ok := aboveGuard(core, sp); ok {
				start = above
				n = core.Readable(start, min(opt.StackLimit, *budget))
			}
		}
		*budget -= n
		stack := make([]byte, n)
		if n > 0 {
			if err := core.ReadMemory(start, stack); err != nil {
				return nil, fmt.Errorf("thread %d stack: %w", t.PID, err)
			}
			stacks = append(stacks, threadStack{start, stack})
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
	return stacks, nil
}

// setException sets the exception: the crashing thread and its signal.
func setException(b *synth.Builder, core *coredump.File) {
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
}

// addModules adds the modules: NT_FILE's (files, sorted by start
// address), the vDSO, opt.Modules and the main executable; code collects
// their executable segments for the memory around code pointers.
func addModules(b *synth.Builder, core *coredump.File, opt Options, files []coredump.MappedFile, code *codeModules) error {
	for _, m := range modulesFromNTFile(files, core.Segments) {
		img := addModule(b, core, opt, m.name, m.base, m.end, nil)
		code.add(&codeModule{base: m.base, end: m.end, path: diskPath(opt, m.name), img: img})
	}
	if base, ok := core.AuxvValue(atSysinfoEhdr); ok && base != 0 {
		if img, err := coredump.ImageInMemory(core, base, core.Is64); err == nil {
			end := base + img.LoadEnd - img.LoadStart
			addModule(b, core, opt, "linux-gate.so", base, end, img)
			code.add(&codeModule{base: base, end: end, img: img})
		}
	}
	for _, m := range opt.Modules {
		img, err := coredump.ImageFile(m.Path)
		if err != nil {
			return fmt.Errorf("--module %s: %w", m.Path, err)
		}
		base := m.Base
		if !m.HasBase {
			base = img.LoadStart
			if img.Type == 3 { // ET_DYN: a PIE main executable, placed by the kernel
				entry, ok := core.AuxvValue(atEntry)
				if !ok {
					return fmt.Errorf("--module %s: position-independent and the core has no AT_ENTRY; give its base as path@0xADDR", m.Path)
				}
				base = entry - img.Entry + img.LoadStart
			}
		}
		if b.ModuleAt(base) != nil {
			continue
		}
		end := base + img.LoadEnd - img.LoadStart
		addModule(b, core, opt, m.Path, base, end, img)
		code.add(&codeModule{base: base, end: end, path: m.Path, user: true, img: img})
	}

	// Without NT_FILE (qemu-user cores) and without --module, the main
	// executable is still found: its program headers are at AT_PHDR, inside
	// its first page.
	// When the core lacks its text (qemu-user dumps none), the module is the
	// executable segment holding the entry point, without an identifier;
	// its placement is a guess, so no code is read for it from its file.
	if phdr, ok := core.AuxvValue(atPHDR); ok && !coveredByModule(b, phdr) {
		base := phdr &^ 0xfff
		if img, err := coredump.ImageInMemory(core, base, core.Is64); err == nil {
			end := base + img.LoadEnd - img.LoadStart
			name := executableName(core)
			img = addModule(b, core, opt, name, base, end, img)
			code.add(&codeModule{base: base, end: end, path: diskPath(opt, name), img: img})
		} else if entry, ok := core.AuxvValue(atEntry); ok {
			for _, s := range segmentsOverlapping(core.Segments, entry, entry+1, 1) {
				if s.Flags&1 != 0 && s.Vaddr <= entry {
					addModule(b, core, opt, executableName(core), s.Vaddr, s.Vaddr+s.Memsz, nil)
				}
			}
		}
	}
	sort.SliceStable(code.mods, func(i, j int) bool { return code.mods[i].base < code.mods[j].base })
	return nil
}

// ipWindows are the memory around each thread's instruction pointer,
// opt.IPWindow bytes, from the core or else from the module's file.
func ipWindows(core *coredump.File, opt Options, code *codeModules, budget *uint64) []chunk {
	var ipChunks []chunk
	for _, t := range core.Threads {
		ip, ok := t.Context.IP()
		if !ok || opt.IPWindow == 0 {
			continue
		}
		half := opt.IPWindow / 2
		lo := ip - half
		if lo > ip {
			lo = 0
		}
		if core.Readable(lo, ip-lo) < ip-lo {
			lo = ip
		}
		n := core.Readable(lo, min(ip+half-lo, *budget))
		if n == 0 {
			// Not in the core: the module's file.
			if seg := code.segmentAt(ip); seg != nil {
				if c, ok := window(core, seg, ip, half, half); ok && c.hi-c.lo <= *budget {
					*budget -= c.hi - c.lo
					ipChunks = append(ipChunks, c)
				}
			}
			continue
		}
		*budget -= n
		ipChunks = append(ipChunks, chunk{lo, lo + n, nil})
	}
	return ipChunks
}

// addMemory adds the chunks, sorted and disjoint, as memory regions:
// adjacent chunks (from different sources) become one region, so that a
// read across their boundary finds one region.
func addMemory(b *synth.Builder, core *coredump.File, memory []chunk) error {
	var region []byte
	var regionLo uint64
	for _, c := range memory {
		buf, ok, err := c.read(core)
		if err != nil {
			return fmt.Errorf("memory at %#x: %w", c.lo, err)
		}
		if !ok {
			continue
		}
		if region != nil && regionLo+uint64(len(region)) == c.lo {
			region = append(region, buf...)
			continue
		}
		if region != nil {
			b.AddMemory(regionLo, region)
		}
		region, regionLo = buf, c.lo
	}
	if region != nil {
		b.AddMemory(regionLo, region)
	}
	return nil
}

// addLinuxStreams adds the auxv, maps, cmdline and process id streams.
func addLinuxStreams(b *synth.Builder, core *coredump.File, files []coredump.MappedFile) {
	if core.Auxv != nil {
		b.SetLinuxAuxv(core.Auxv)
	}
	b.SetLinuxMaps(linuxMaps(core, files))
	if ps := core.PSInfo; ps != nil {
		if args := strings.Fields(ps.PSArgs); len(args) > 0 {
			b.SetLinuxCmdLine(args...)
		}
		if ps.PID != 0 {
			b.SetMiscInfo(synth.MiscInfo{Size: 24, Flags1: synth.MiscProcessID, ProcessID: ps.PID})
		}
	}
}

func coveredByModule(b *synth.Builder, addr uint64) bool {
	for _, m := range b.Modules() {
		if m.Base <= addr && addr-m.Base < uint64(m.Size) {
			return true
		}
	}
	return false
}

// executableName is the AT_EXECFN string from the core's memory, else the
// NT_PRPSINFO file name.
func executableName(core *coredump.File) string {
	if p, ok := core.AuxvValue(atExecFn); ok {
		buf := make([]byte, 256)
		n := core.Readable(p, uint64(len(buf)))
		if n > 0 && core.ReadMemory(p, buf[:n]) == nil {
			if i := strings.IndexByte(string(buf[:n]), 0); i > 0 {
				return string(buf[:i])
			}
		}
	}
	if core.PSInfo != nil && core.PSInfo.FName != "" {
		return core.PSInfo.FName
	}
	return "main"
}

// addModule adds a module and its identifier: the build id from the image
// in memory, else from the file on disk, else Breakpad's .text hash of the
// file on disk. It returns the image the identifier came from (or img), nil
// when there is none.
func addModule(b *synth.Builder, core *coredump.File, opt Options, name string, base, end uint64, img *coredump.Image) *coredump.Image {
	size := end - base
	if size > 0xffffffff {
		size = 0xffffffff
	}
	m := b.AddModule(name, base, uint32(size))
	if img == nil || img.BuildID == nil {
		if mem, err := coredump.ImageInMemory(core, base, core.Is64); err == nil && mem.BuildID != nil {
			img = mem
		}
	}
	if path := diskPath(opt, name); path != "" && (img == nil || (img.BuildID == nil && img.TextHash == nil)) {
		if disk, err := coredump.ImageFile(path); err == nil {
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
	return img
}

// diskPath is where the file of a module the core names is read from
// disk, "" when it may not be: reading from disk is off, the name is no
// absolute path, or (the core names the path, so it is untrusted) the file
// it leads to under a sysroot, its symbolic links followed, lies outside
// that sysroot.
func diskPath(opt Options, name string) string {
	if opt.NoDisk || !filepath.IsAbs(name) {
		return ""
	}
	if opt.Sysroot == "" {
		return name
	}
	root, err := filepath.EvalSymlinks(opt.Sysroot)
	if err != nil {
		return ""
	}
	path, err := filepath.EvalSymlinks(filepath.Join(root, filepath.Clean(name)))
	if err != nil {
		return ""
	}
	if rel, err := filepath.Rel(root, path); err != nil || !filepath.IsLocal(rel) {
		return ""
	}
	return path
}

// maxModules bounds the modules taken from NT_FILE (real processes map a
// few hundred).
const maxModules = 1 << 16

type ntModule struct {
	name      string
	base, end uint64
}

// modulesFromNTFile groups NT_FILE entries into modules: a module starts at
// the mapping of file offset 0 and extends over the following mappings of
// the same file. Files none of whose mappings is executable (data files,
// ld.so.cache, locale archives) are left out when the core says which
// mappings are executable. files are the NT_FILE entries sorted by Start.
func modulesFromNTFile(files []coredump.MappedFile, segs []coredump.Segment) []ntModule {
	var mods []ntModule
	var exec []bool
	var known []bool
	for _, f := range files {
		k := len(mods) - 1
		switch {
		case f.Offset == 0:
			mods = append(mods, ntModule{f.Name, f.Start, f.End})
			exec = append(exec, false)
			known = append(known, false)
			k++
		case k >= 0 && mods[k].name == f.Name:
			mods[k].end = max(mods[k].end, f.End)
		default:
			continue
		}
		for _, s := range segmentsOverlapping(segs, f.Start, f.End, 64) {
			known[k] = true
			if s.Flags&1 != 0 {
				exec[k] = true
			}
		}
	}
	var out []ntModule
	for i, m := range mods {
		if (exec[i] || !known[i]) && len(out) < maxModules {
			out = append(out, m)
		}
	}
	return out
}

type interval struct{ lo, hi uint64 }

// threadStack is a thread's stack memory as put into the dump.
type threadStack struct {
	start uint64
	data  []byte
}

// union returns the union of intervals as disjoint intervals sorted by lo.
func union(in []interval) []interval {
	sort.Slice(in, func(i, j int) bool { return in[i].lo < in[j].lo })
	var out []interval
	for _, w := range in {
		if k := len(out); k > 0 && w.lo <= out[k-1].hi {
			out[k-1].hi = max(out[k-1].hi, w.hi)
			continue
		}
		out = append(out, w)
	}
	return out
}

// subtract returns the parts of w not covered by any of cut, which is
// sorted by lo and made of disjoint intervals.
func subtract(w interval, cut []interval) []interval {
	var parts []interval
	i := sort.Search(len(cut), func(i int) bool { return cut[i].hi > w.lo })
	for ; i < len(cut) && cut[i].lo < w.hi; i++ {
		if cut[i].lo > w.lo {
			parts = append(parts, interval{w.lo, cut[i].lo})
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

// linuxMaps renders the core's PT_LOAD segments in /proc/pid/maps form,
// naming each by the NT_FILE entry that covers it; files are the NT_FILE
// entries sorted by Start.
func linuxMaps(core *coredump.File, files []coredump.MappedFile) string {
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

// aboveGuard returns where the stack above a guard page holding sp begins:
// a stack overflow leaves the stack pointer in the inaccessible page below
// a thread's stack (a segment with no permissions and no stored bytes),
// where the faulting push or store went; the frames are in the writable
// segment right above it. False when sp lies elsewhere.
func aboveGuard(core *coredump.File, sp uint64) (uint64, bool) {
	segs := core.Segments
	i := sort.Search(len(segs), func(i int) bool { return segs[i].Vaddr+segs[i].Memsz > sp })
	if i+1 >= len(segs) || segs[i].Vaddr > sp || segs[i].Flags != 0 || segs[i].Filesz != 0 {
		return 0, false
	}
	next := segs[i+1]
	if next.Vaddr != segs[i].Vaddr+segs[i].Memsz || next.Flags&2 == 0 || next.Filesz == 0 {
		return 0, false
	}
	return next.Vaddr, true
}
