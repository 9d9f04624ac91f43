package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

var signalNumbers = map[string]uint32{"SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6, "SIGBUS": 7, "SIGFPE": 8, "SIGSEGV": 11}

// rawStatusOffset is where the flags register (eflags, cpsr) sits in each
// raw context layout; minidump.Context does not carry it for every architecture.
var rawStatusOffset = map[minidump.Arch]int64{minidump.ArchAMD64: 68, minidump.ArchARM: 68, minidump.ArchARM64: 4}

// TestCorpusAgreesWithGDB checks every converted dump of the corpus against
// gdb's reading of the core it was converted from: the same threads, the
// same crashing thread and signal, the same frame-0 registers, stack memory
// at each stack pointer, and a module (with the debug id dump_syms gave the
// program) under every frame gdb found, whose symbols name the functions gdb
// names.
func TestCorpusAgreesWithGDB(t *testing.T) {
	cases := readCases(t)
	if len(cases) == 0 {
		t.Fatal("testdata/cases.txt lists no dumps")
	}
	perArch := map[string]int{}
	multiThreaded := map[string]bool{}
	for _, c := range cases {
		perArch[c.Arch]++
		if c.Threads > 1 {
			multiThreaded[c.Arch] = true
		}
		t.Run(c.Name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(testdataDir, "dumps", c.Name+".dmp"))
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstGDB(t, c, data)
		})
	}
	for _, arch := range []string{"amd64", "x86", "arm", "arm64"} {
		if perArch[arch] < 4 || !multiThreaded[arch] {
			t.Errorf("corpus has %d dumps for %s (multi-threaded: %v); want at least 4, one multi-threaded", perArch[arch], arch, multiThreaded[arch])
		}
	}
}

// guardMax bounds a thread stack's guard page(s) (glibc's default guard is
// one page).
const guardMax = 64 << 10

func checkAgainstGDB(t *testing.T, c corpusCase, data []byte) {
	dump := openDump(t, data)
	gdbThreads := oracle.ReadGDBFrames(t, filepath.Join(testdataDir, "oracle", c.Name+".frames.txt"))
	if len(gdbThreads) != c.Threads {
		t.Errorf("cases.txt says %d threads, gdb found %d", c.Threads, len(gdbThreads))
	}
	sys, err := dump.SystemInfo()
	if err != nil {
		t.Fatal(err)
	}
	if sys.Arch.String() != c.Arch {
		t.Errorf("SystemInfo architecture %v, want %s", sys.Arch, c.Arch)
	}
	threads, err := dump.Threads()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[uint32]minidump.Thread{}
	for _, th := range threads {
		byID[th.ID] = th
	}
	if len(threads) != len(gdbThreads) {
		t.Errorf("dump has %d threads, gdb %d", len(threads), len(gdbThreads))
	}

	// The crashing thread and the signal.
	ex, err := dump.Exception()
	if err != nil {
		t.Fatal(err)
	}
	checkGDBSignal(t, c, ex)

	modules, err := dump.Modules()
	if err != nil {
		t.Fatal(err)
	}
	syms := map[string]*symFile{}
	mem, _ := dump.Memory()

	for _, g := range gdbThreads {
		th, ok := byID[g.LWP]
		if !ok {
			t.Errorf("gdb thread %d is not in the dump", g.LWP)
			continue
		}
		if g.Crashed && ex.ThreadID != g.LWP {
			t.Errorf("exception names thread %d, gdb says %d crashed", ex.ThreadID, g.LWP)
		}
		if th.Context == nil {
			t.Errorf("thread %d: no context: %v", g.LWP, th.ContextErr)
			continue
		}
		checkGDBRegisters(t, c, data, g, th)
		checkStackCoversSP(t, c, g, th, mem)
		checkGDBFrames(t, g, modules, syms)
	}
}

// checkGDBSignal compares the exception's signal with the one gdb names.
func checkGDBSignal(t *testing.T, c corpusCase, ex *minidump.Exception) {
	t.Helper()
	gdbText, err := os.ReadFile(filepath.Join(testdataDir, "oracle", c.Name+".gdb.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// gdb names no signal for qemu's multi-threaded cores, where only the
	// crashing thread (written first) has pr_cursig set; it seems to read
	// the signal of the last NT_PRSTATUS.
	if m := regexp.MustCompile(`Program terminated with signal (SIG[A-Z]+)`).FindSubmatch(gdbText); m == nil {
		if c.Producer != "qemu" || c.Threads == 1 {
			t.Error("gdb.txt does not name the signal")
		}
	} else if want := signalNumbers[string(m[1])]; ex.Code != want {
		t.Errorf("exception code %d, gdb says %s (%d)", ex.Code, m[1], want)
	}
}

// checkGDBRegisters compares a thread's context with gdb's frame-0
// registers.
func checkGDBRegisters(t *testing.T, c corpusCase, data []byte, g *oracle.GDBThread, th minidump.Thread) {
	t.Helper()
	ctx := th.Context
	for name, want := range g.Regs {
		var got uint64
		var ok bool
		if name == "eflags" && c.Arch != "x86" || name == "cpsr" {
			off := th.ContextOff + rawStatusOffset[ctx.Arch]
			got, ok = uint64(binary.LittleEndian.Uint32(data[off:])), true
		} else {
			got, ok = ctx.Get(name)
		}
		if !ok {
			t.Errorf("thread %d: register %s missing", g.LWP, name)
		} else if got != want {
			t.Errorf("thread %d: %s = %#x, gdb says %#x", g.LWP, name, got, want)
		}
	}
}

// checkStackCoversSP checks that a thread's stack memory starts at or below
// its stack pointer and covers it; after a stack overflow the stack pointer
// is in the guard page (nothing stored) and the stack starts right above
// it. (The signal is the handler's raise(): its si_addr is no fault
// address.)
func checkStackCoversSP(t *testing.T, c corpusCase, g *oracle.GDBThread, th minidump.Thread, mem *minidump.MemoryList) {
	t.Helper()
	sp, _ := th.Context.SP()
	if overflowed := c.Case == "overflow" && g.Crashed; overflowed {
		if th.Stack.Start <= sp || th.Stack.Start-sp > guardMax {
			t.Errorf("thread %d: stack memory [%#x,+%#x), sp %#x: want sp in the guard below it", g.LWP, th.Stack.Start, th.Stack.Size, sp)
		}
	} else if th.Stack.Start > sp || sp-th.Stack.Start >= uint64(th.Stack.Size) {
		t.Errorf("thread %d: stack memory [%#x,+%#x) does not cover sp %#x", g.LWP, th.Stack.Start, th.Stack.Size, sp)
	}
	if mem != nil && !(c.Case == "overflow" && g.Crashed) {
		if _, ok := mem.Region(sp); !ok {
			t.Errorf("thread %d: memory list has no region at sp %#x", g.LWP, sp)
		}
	}
}

// checkGDBFrames checks that the .sym of each frame's module names gdb's
// function at the frame's pc (syms caches the .sym files read).
func checkGDBFrames(t *testing.T, g *oracle.GDBThread, modules []minidump.Module, syms map[string]*symFile) {
	t.Helper()
	moduleAt := func(pc uint64) *minidump.Module {
		for i := range modules {
			if modules[i].Base <= pc && pc < modules[i].End() {
				return &modules[i]
			}
		}
		return nil
	}
	for i, f := range g.Frames {
		lookup := f.PC
		if i > 0 {
			lookup-- // a return address may be one past its function
		}
		m := moduleAt(lookup)
		if m == nil {
			t.Errorf("thread %d frame %d: no module at %#x (%s)", g.LWP, i, f.PC, f.Function)
			continue
		}
		// The programs built by the generator have .sym files.
		base := filepath.Base(m.Name)
		if _, err := os.Stat(filepath.Join(testdataDir, "symbols", base)); err != nil {
			continue
		}
		sym := syms[m.DebugID]
		if sym == nil {
			path := filepath.Join(testdataDir, "symbols", base, m.DebugID, base+".sym")
			if _, err := os.Stat(path); err != nil {
				t.Errorf("module %s has debug id %s, which no .sym in testdata/symbols has", m.Name, m.DebugID)
				continue
			}
			sym = readSym(t, path)
			syms[m.DebugID] = sym
		}
		fn, ok := sym.funcAt(lookup - m.Base)
		if !ok || f.Function == "??" {
			continue // no debug information for this function (libc)
		}
		if !sameFunction(fn.Name, f.Function) {
			t.Errorf("thread %d frame %d: .sym names %q at %#x, gdb %q", g.LWP, i, fn.Name, f.PC, f.Function)
		}
	}
}

// sameFunction compares a .sym function name (with parameters, as dump_syms
// writes it) with gdb's frame function name (without them).
func sameFunction(sym, gdb string) bool {
	if sym == gdb || strings.HasPrefix(sym, gdb+"(") || strings.HasPrefix(gdb, sym+"(") {
		return true
	}
	// gdb may print a lambda or template more briefly: compare the last name.
	last := gdb[strings.LastIndex(gdb, "::")+1:]
	return strings.Contains(sym, last)
}

// TestBreakpadWalkedCorpus checks the Breakpad oracle files against gdb's:
// Breakpad walked every thread of each converted dump, starts the crashing
// thread at gdb's frame-0 address, and reports the crash thread's index.
func TestBreakpadWalkedCorpus(t *testing.T) {
	for _, c := range readCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join(testdataDir, "oracle", c.Name+".breakpad.machine.txt"))
			if err != nil {
				t.Fatal(err)
			}
			gdbThreads := oracle.ReadGDBFrames(t, filepath.Join(testdataDir, "oracle", c.Name+".frames.txt"))
			type module struct{ base, end uint64 }
			var modules []module
			// Frame 0 of each thread: Breakpad prints the function, or when it
			// has none, the module offset.
			type first struct {
				function string
				offset   uint64
			}
			frame0 := map[int]first{}
			crashThread := -1
			threads := map[string]bool{}
			for _, line := range strings.Split(string(text), "\n") {
				f := strings.Split(line, "|")
				switch {
				case f[0] == "Crash" && len(f) == 4:
					crashThread, _ = strconv.Atoi(f[3])
				case f[0] == "Module" && len(f) == 8:
					b, _ := strconv.ParseUint(f[5], 0, 64)
					e, _ := strconv.ParseUint(f[6], 0, 64)
					modules = append(modules, module{b, e})
				case len(f) == 7:
					threads[f[0]] = true
					if f[1] == "0" {
						i, _ := strconv.Atoi(f[0])
						off, _ := strconv.ParseUint(f[6], 0, 64)
						frame0[i] = first{f[3], off}
					}
				}
			}
			if len(threads) != len(gdbThreads) {
				t.Errorf("Breakpad walked %d threads, gdb %d", len(threads), len(gdbThreads))
			}
			crashed := -1
			for i, g := range gdbThreads {
				if g.Crashed {
					crashed = i
				}
			}
			if crashThread < 0 || crashed < 0 {
				t.Fatalf("crash thread: Breakpad %d, gdb %d", crashThread, crashed)
			}
			// Thread order: both list the crashing thread first here, as the
			// cores and so the dumps do.
			if crashThread != 0 || crashed != 0 {
				t.Errorf("crash thread index: Breakpad %d, gdb %d", crashThread, crashed)
			}
			gf := gdbThreads[crashed].Frames[0]
			if bf := frame0[crashThread]; bf.function != "" {
				if !sameFunction(bf.function, gf.Function) {
					t.Errorf("Breakpad frame 0 in %q, gdb in %q", bf.function, gf.Function)
				}
				return
			}
			for _, m := range modules {
				if m.base <= gf.PC && gf.PC <= m.end {
					if got := frame0[crashThread].offset; got != gf.PC-m.base {
						t.Errorf("Breakpad frame 0 at module offset %#x, gdb pc %#x = offset %#x", got, gf.PC, gf.PC-m.base)
					}
					return
				}
			}
			t.Errorf("gdb's crash pc %#x is in no module Breakpad lists", gf.PC)
		})
	}
}
