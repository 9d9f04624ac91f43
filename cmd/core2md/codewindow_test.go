package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/coreconv"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// dumpMemory is a dump's memory list and thread stacks, read with the
// minidump package.
type dumpMemory struct {
	regions []minidump.MemoryRegion
	data    [][]byte
	stacks  []minidump.MemoryDescriptor
	ips     []uint64
}

func readDumpMemory(t *testing.T, data []byte) dumpMemory {
	t.Helper()
	f := openDump(t, data)
	ml, err := f.Memory()
	if err != nil {
		t.Fatal(err)
	}
	var m dumpMemory
	m.regions = ml.Regions()
	for _, r := range m.regions {
		b, err := r.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		m.data = append(m.data, b)
	}
	ths, err := f.Threads()
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range ths {
		m.stacks = append(m.stacks, th.Stack)
		if ip, ok := th.Context.IP(); ok {
			m.ips = append(m.ips, ip)
		}
	}
	return m
}

// read returns the bytes at [addr, addr+n) if the dump holds all of them,
// possibly across adjacent regions.
func (m dumpMemory) read(addr, n uint64) ([]byte, bool) {
	var out []byte
	for a := addr; a < addr+n; {
		found := false
		for i, r := range m.regions {
			if r.Contains(a) {
				k := min(addr+n-a, r.End()-a)
				out = append(out, m.data[i][a-r.Base:a-r.Base+k]...)
				a += k
				found = true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return out, true
}

// isStack reports whether region r is one of the threads' stacks.
func (m dumpMemory) isStack(r minidump.MemoryRegion) bool {
	for _, s := range m.stacks {
		if s.Start == r.Base && uint64(s.Size) == r.Size {
			return true
		}
	}
	return false
}

// checkDisjoint fails t if two regions of the memory list overlap (Breakpad
// rejects such a list).
func (m dumpMemory) checkDisjoint(t *testing.T) {
	t.Helper()
	for i := 1; i < len(m.regions); i++ {
		if m.regions[i].Base < m.regions[i-1].End() {
			t.Errorf("regions [%#x,%#x) and [%#x,%#x) overlap", m.regions[i-1].Base, m.regions[i-1].End(), m.regions[i].Base, m.regions[i].End())
		}
	}
}

// progCode reads the program file with debug/elf, independently of the
// converter: the file bytes of its executable PT_LOAD segments.
type progCode struct{ segs []*elf.Prog }

func openProgCode(t *testing.T, path string) progCode {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ef.Close() })
	var p progCode
	for _, s := range ef.Progs {
		if s.Type == elf.PT_LOAD && s.Flags&elf.PF_X != 0 {
			p.segs = append(p.segs, s)
		}
	}
	if len(p.segs) == 0 {
		t.Fatalf("%s has no executable segment", path)
	}
	return p
}

// segment returns the executable segment holding addr.
func (p progCode) segment(addr uint64) *elf.Prog {
	for _, s := range p.segs {
		if s.Vaddr <= addr && addr < s.Vaddr+s.Filesz {
			return s
		}
	}
	return nil
}

// bytes returns the file's bytes at [lo, hi), which must lie in one segment.
func (p progCode) bytes(t *testing.T, lo, hi uint64) []byte {
	t.Helper()
	s := p.segment(lo)
	if s == nil || hi > s.Vaddr+s.Filesz {
		t.Fatalf("[%#x,%#x) is not in an executable segment of the program", lo, hi)
	}
	buf := make([]byte, hi-lo)
	if _, err := s.ReadAt(buf, int64(lo-s.Vaddr)); err != nil {
		t.Fatal(err)
	}
	return buf
}

// TestCodeWindows converts the qemu-user cores of arm and arm64 (which hold
// no program text) with the program as --module: the dump holds the
// program's bytes around every return address gdb found on the crashing
// thread's stack, 64 before and 64 from it (clipped to the executable
// segment), equal to the bytes of the program file read with debug/elf; no
// two regions overlap; and with CodeWindow 0 the memory list is the stacks
// and the instruction-pointer windows only, which the default list holds
// unchanged.
func TestCodeWindows(t *testing.T) {
	for _, tc := range []struct{ core, arch string }{
		{"arm-fp", "arm"},
		{"arm64-fp", "arm64"},
	} {
		t.Run(tc.core, func(t *testing.T) {
			prog := unpackProgram(t, tc.arch)
			code := openProgCode(t, prog)
			raw := readCore(t, tc.core)
			opt := defaultOptions
			opt.CodeWindow = 128
			opt.Modules = []coreconv.Module{{Path: prog}}
			mem := readDumpMemory(t, convertCore(t, raw, opt))
			mem.checkDisjoint(t)

			threads := oracle.ReadGDBFrames(t, filepath.Join(testdataDir, "oracle", tc.core+".frames.txt"))
			checked := 0
			for _, th := range threads {
				for i, f := range th.Frames {
					if i == 0 {
						continue // not a return address: the instruction-pointer window
					}
					s := code.segment(f.PC)
					if s == nil {
						t.Errorf("gdb's frame %d pc %#x is not in the program's code", i, f.PC)
						continue
					}
					lo, hi := max(f.PC-64, s.Vaddr), min(f.PC+64, s.Vaddr+s.Filesz)
					got, ok := mem.read(lo, hi-lo)
					if !ok {
						t.Errorf("frame %d (%s): return address %#x: dump lacks [%#x,%#x)", i, f.Function, f.PC, lo, hi)
						continue
					}
					if want := code.bytes(t, lo, hi); !bytes.Equal(got, want) {
						t.Errorf("frame %d (%s): bytes at [%#x,%#x) differ from the program file", i, f.Function, lo, hi)
					}
					checked++
				}
			}
			if checked < 4 {
				t.Errorf("checked %d return addresses, want at least 4", checked)
			}
			// Every region that is not a stack holds program bytes: nothing
			// invented.
			for i, r := range mem.regions {
				if mem.isStack(r) {
					continue
				}
				if want := code.bytes(t, r.Base, r.End()); !bytes.Equal(mem.data[i], want) {
					t.Errorf("region [%#x,%#x) differs from the program file", r.Base, r.End())
				}
			}

			// CodeWindow 0: only the stacks and the instruction-pointer
			// windows (from the program file: the core lacks them), all kept
			// in the default dump.
			opt.CodeWindow = 0
			old := readDumpMemory(t, convertCore(t, raw, opt))
			old.checkDisjoint(t)
			for i, r := range old.regions {
				if !old.isStack(r) {
					holdsIP := false
					for _, ip := range old.ips {
						holdsIP = holdsIP || r.Contains(ip)
					}
					if !holdsIP {
						t.Errorf("CodeWindow 0: region [%#x,%#x) is neither a stack nor an instruction-pointer window", r.Base, r.End())
					}
				}
				if got, ok := mem.read(r.Base, r.Size); !ok || !bytes.Equal(got, old.data[i]) {
					t.Errorf("CodeWindow 0's region [%#x,%#x) is not in the default dump", r.Base, r.End())
				}
			}
			if len(old.regions) >= len(mem.regions) {
				t.Errorf("CodeWindow 0 keeps %d regions, the default %d", len(old.regions), len(mem.regions))
			}
			// And without the instruction-pointer window, the stacks alone:
			// the memory list of converters before code windows.
			opt.IPWindow = 0
			stacksOnly := readDumpMemory(t, convertCore(t, raw, opt))
			for _, r := range stacksOnly.regions {
				if !stacksOnly.isStack(r) {
					t.Errorf("IPWindow 0, CodeWindow 0: region [%#x,%#x) is not a stack", r.Base, r.End())
				}
			}
		})
	}
}

// TestCodeWindowsWithoutProgram converts a kernel core whose program file
// is not at hand (testdata keeps no amd64 program; the core holds no text
// with the default coredump_filter): the conversion succeeds and puts no
// code of the program into the dump, whether reading from disk is
// forbidden or the file is missing under the sysroot. The only code windows
// are of the vDSO, whose text the kernel dumps.
func TestCodeWindowsWithoutProgram(t *testing.T) {
	raw := readCore(t, "amd64-fp")
	for _, tc := range []struct {
		name string
		opt  func(*coreconv.Options)
	}{
		{"no-disk", func(o *coreconv.Options) { o.NoDisk = true }},
		{"missing file", func(o *coreconv.Options) { o.NoDisk, o.Sysroot = false, t.TempDir() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := defaultOptions
			opt.CodeWindow = 128
			tc.opt(&opt)
			data := convertCore(t, raw, opt)
			mem := readDumpMemory(t, data)
			mem.checkDisjoint(t)
			var vdso *minidump.Module
			ms := dumpModules(t, data)
			for i := range ms {
				if ms[i].Name == "linux-gate.so" {
					vdso = &ms[i]
				}
			}
			for _, r := range mem.regions {
				if mem.isStack(r) {
					continue
				}
				if vdso == nil || r.Base < vdso.Base || r.End() > vdso.End() {
					t.Errorf("region [%#x,%#x) is neither a stack nor in the vDSO", r.Base, r.End())
				}
			}
			// With CodeWindow 0 the memory list is the stack alone (the
			// core has no program text for the instruction-pointer window).
			opt.CodeWindow = 0
			for _, r := range readDumpMemory(t, convertCore(t, raw, opt)).regions {
				if !mem.isStack(r) {
					t.Errorf("CodeWindow 0: region [%#x,%#x) is not a stack", r.Base, r.End())
				}
			}
		})
	}
}

// TestCodeWindowFlag: -code-window 0 and the default through the command.
func TestCodeWindowFlag(t *testing.T) {
	dir := t.TempDir()
	prog := unpackProgram(t, "arm64")
	core := filepath.Join(dir, "core")
	writeFile(t, core, readCore(t, "arm64-fp"))
	regions := func(args ...string) int {
		out := filepath.Join(dir, "out.dmp")
		var stderr strings.Builder
		if code := run(append(args, "--module", prog, core, out), &stderr); code != 0 {
			t.Fatalf("run %v = %d: %s", args, code, stderr.String())
		}
		return len(readDumpMemory(t, readFile(t, out)).regions)
	}
	off, on := regions("--code-window", "0"), regions()
	if off != 2 || on <= off {
		t.Errorf("regions with -code-window 0: %d (want 2: stack, instruction-pointer window); by default %d (want more)", off, on)
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCorpusCodeWindows checks the dumps of testdata/: for every return
// address gdb (or, for the signal cases, libgcc's backtrace) found (frames
// 1 and up) that the thread's stack or registers
// hold as a word (on arm possibly with the Thumb bit), the dump holds the
// 64 bytes before it and the 64 from it on, as core2md -code-window 128
// keeps them; on arm and arm64 they equal the program file's bytes (the
// kept stripped program, read with debug/elf). No two regions overlap.
func TestCorpusCodeWindows(t *testing.T) {
	progs := map[string]progCode{} // by arch and program name (crashdemo or an extra case's)
	outer := t                     // the programs stay open for every case
	for _, c := range readCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			data := readFile(t, filepath.Join(testdataDir, "dumps", c.Name+".dmp"))
			mem := readDumpMemory(t, data)
			mem.checkDisjoint(t)
			dump := openDump(t, data)
			ths, err := dump.Threads()
			if err != nil {
				t.Fatal(err)
			}
			var prog progCode
			isArm := c.Arch == "arm" || c.Arch == "arm64"
			if isArm {
				mods, err := dump.Modules()
				if err != nil || len(mods) == 0 {
					t.Fatalf("modules: %v", err)
				}
				name := filepath.Base(mods[0].Name)
				if _, ok := progs[c.Arch+"-"+name]; !ok {
					progs[c.Arch+"-"+name] = openProgCode(outer, unpackNamedProgram(outer, c.Arch, name))
				}
				prog = progs[c.Arch+"-"+name]
			}
			checked, absent := 0, 0
			listings := oracle.ReadGDBFrames(t, filepath.Join(testdataDir, "oracle", c.Name+".frames.txt"))
			// The signal cases' second oracle, libgcc's backtrace in the
			// same format, goes on where gdb stops.
			if unwind := filepath.Join(testdataDir, "oracle", c.Name+".unwind.txt"); fileExists(unwind) {
				listings = append(listings, oracle.ReadGDBFrames(t, unwind)...)
			}
			for _, g := range listings {
				var words map[uint64]bool
				for _, th := range ths {
					if th.ID == g.LWP {
						words = threadWords(t, mem, th, c.Arch == "arm")
					}
				}
				if words == nil {
					t.Fatalf("gdb's thread %d is not in the dump", g.LWP)
				}
				for i, f := range g.Frames[min(1, len(g.Frames)):] {
					if !words[f.PC] {
						absent++
						continue
					}
					lo, hi := f.PC-64, f.PC+64
					if isArm {
						s := prog.segment(f.PC)
						if s == nil {
							continue // not the program's code (none of arm's dumps has another module)
						}
						lo, hi = max(lo, s.Vaddr), min(hi, s.Vaddr+s.Filesz)
					}
					got, ok := mem.read(lo, hi-lo)
					switch {
					case !ok:
						t.Errorf("thread %d frame %d (%s): dump lacks [%#x,%#x) around return address %#x", g.LWP, i+1, f.Function, lo, hi, f.PC)
					case isArm && !bytes.Equal(got, prog.bytes(t, lo, hi)):
						t.Errorf("thread %d frame %d (%s): bytes at [%#x,%#x) differ from the program file", g.LWP, i+1, f.Function, lo, hi)
					}
					checked++
				}
			}
			if checked == 0 {
				t.Errorf("no gdb return address is on a stack (%d are not)", absent)
			}
			t.Logf("%d return addresses checked, %d not on the stack nor in a register", checked, absent)
		})
	}
}

// threadWords returns the aligned words of th's stack in the dump and its
// register values; on arm each also without the Thumb bit.
func threadWords(t *testing.T, mem dumpMemory, th minidump.Thread, arm bool) map[uint64]bool {
	t.Helper()
	words := map[uint64]bool{}
	add := func(v uint64) {
		words[v] = true
		if arm {
			words[v&^1] = true
		}
	}
	for i := range th.Context.NumRegs() {
		if v, ok := th.Context.Index(i); ok {
			add(v)
		}
	}
	stack, ok := mem.read(th.Stack.Start, uint64(th.Stack.Size))
	if !ok {
		t.Fatalf("thread %d: stack not in the memory list", th.ID)
	}
	size := th.Context.WordSize()
	for off := 0; off+size <= len(stack); off += size {
		if size == 8 {
			add(binary.LittleEndian.Uint64(stack[off:]))
		} else {
			add(uint64(binary.LittleEndian.Uint32(stack[off:])))
		}
	}
	return words
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
