package minidump_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/synthkit"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

var regPair = regexp.MustCompile(`(\w+) = 0x([0-9a-f]+)`)

// TestContextsAgainstBreakpad covers the architectures the corpus lacks (arm,
// arm64 in both layouts): synthetic dumps are parsed by us and by Breakpad's
// minidump_stackwalk, and the CPU lines and frame-0 registers must agree.
func TestContextsAgainstBreakpad(t *testing.T) {
	oracleStackwalk := oracle.Require(t, oracle.Stackwalk)
	for _, arch := range []minidump.Arch{minidump.ArchX86, minidump.ArchAMD64, minidump.ArchARM, minidump.ArchARM64, minidump.ArchARM64Old} {
		t.Run(arch.String()+strconv.Itoa(int(arch)), func(t *testing.T) {
			ctx := minidump.NewContext(arch)
			n := ctx.NumRegs()
			for i := 0; i < n; i++ {
				ctx.SetIndex(i, 0x1111*uint64(i+1)+0x10000)
			}
			const stackBase = 0x7000
			ctx.SetSP(stackBase + 0x10)
			ctx.SetIP(0x400123)
			b := synth.New(arch, synth.Linux).SetCSDVersion("Linux 6.1.0 #1 SMP x86_64")
			b.Sys.NumberOfProcessors = 4
			switch arch {
			case minidump.ArchX86, minidump.ArchAMD64:
				synthkit.SetCPU(b, "GenuineIntel", 6, 45, 7)
			case minidump.ArchARM:
				b.Sys.ProcessorLevel, b.Sys.ARMCPUID, b.Sys.ARMHWCaps = 7, 0x410fc090, 0x1fff
			}
			b.AddThread(0x42, ctx, stackBase, make([]byte, 256))
			b.AddModule("/usr/bin/app", 0x400000, 0x10000).SetBuildID([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
			b.SetException(0x42, 11, 0x45).Flags = 1
			path := filepath.Join(t.TempDir(), "d.dmp")
			writeDump(t, b, path)
			out := oracleOutput(t, oracleStackwalk, path)
			want := strings.Split(string(out), "\n")

			f, err := minidump.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			si, err := f.SystemInfo()
			if err != nil {
				t.Fatal(err)
			}
			ex, err := f.Exception()
			if err != nil {
				t.Fatal(err)
			}
			header := []string{"Operating system: " + si.OS(), "                  " + si.OSVersion(), "CPU: " + si.CPU()}
			if ci := si.CPUInfo(); ci != "" {
				header = append(header, "     "+ci)
			}
			header = append(header, "     4 CPUs", "", "GPU: UNKNOWN", "",
				"Crash reason:  "+minidump.CrashReason(si, ex), "Crash address: 0x"+strconv.FormatUint(minidump.CrashAddress(si, ex), 16))
			for i, l := range header {
				if i >= len(want) || want[i] != l {
					t.Errorf("header line %d: got %q, Breakpad %q", i, l, want[min(i, len(want)-1)])
				}
			}
			threads, err := f.Threads()
			if err != nil || len(threads) != 1 || threads[0].Context == nil {
				t.Fatalf("threads %+v, %v", threads, err)
			}
			got := threads[0].Context
			// Registers of frame 0 as Breakpad prints them.
			regs := map[string]uint64{}
			in := false
			for _, l := range want {
				if strings.HasPrefix(l, " 0  ") {
					in = true
					continue
				}
				if in {
					if !strings.HasPrefix(l, "    ") || strings.Contains(l, "Found by") {
						break
					}
					for _, m := range regPair.FindAllStringSubmatch(l, -1) {
						v, _ := strconv.ParseUint(m[2], 16, 64)
						regs[m[1]] = v
					}
				}
			}
			t.Logf("%q; Breakpad printed %d frame-0 registers", header[3], len(regs))
			if len(regs) < n-1 {
				t.Fatalf("Breakpad printed %d registers: %q", len(regs), out)
			}
			for name, v := range regs {
				g, ok := got.Get(name)
				if name == "cpsr" {
					continue // not in our register file
				}
				if !ok || g != v {
					t.Errorf("%s: got %#x (valid %v), Breakpad %#x", name, g, ok, v)
				}
			}
		})
	}
}

// TestCrashReasonsAgainstBreakpad builds one dump per exception and compares
// CrashReason/CrashAddress with Breakpad's "Crash reason:"/"Crash address:".
func TestCrashReasonsAgainstBreakpad(t *testing.T) {
	oracleStackwalk := oracle.Require(t, oracle.Stackwalk)
	type tc struct {
		os     synth.OS
		arch   minidump.Arch
		code   uint32
		flags  uint32
		addr   uint64
		params []uint64
	}
	var cases []tc
	win := func(code uint32, addr uint64, params ...uint64) {
		cases = append(cases, tc{synth.Windows, minidump.ArchAMD64, code, 0, addr, params})
	}
	win(0xc0000005, 0x1234, 0, 0xdead)
	win(0xc0000005, 0x1234, 1, 0xbeef)
	win(0xc0000005, 0x1234, 8, 0xf00d)
	win(0xc0000005, 0x1234, 5, 0xf00d)
	win(0xc0000005, 0x1234)
	win(0xc0000006, 0x1234, 0, 0x5000, 0xc000009c)
	win(0xc0000006, 0x1234, 1, 0x5000, 0xc0000185)
	win(0xc0000006, 0x1234, 8, 0x5000, 0x12345678)
	win(0xc0000409, 0x1234, 7)
	win(0xc0000409, 0x1234, 2)
	win(0xc0000409, 0x1234, 0)
	win(0xc0000409, 0x1234, 1000)
	win(0xc0000409, 0x1234)
	for _, c := range []uint32{0x40010005, 0x80000003, 0xc00000fd, 0xc0000374, 0xe06d7363, 0xe0000008, 0x517a7ed, 0xc000000d, 0x12345678} {
		win(c, 0x1234)
	}
	// 32-bit CPUs truncate the crash address.
	cases = append(cases, tc{synth.Windows, minidump.ArchX86, 0xc0000005, 0, 0x10, []uint64{1, 0xffffffff00000045}})
	cases = append(cases, tc{synth.Linux, minidump.ArchARM, 11, 1, 0xffffffff12345678, nil})
	for sig := uint32(1); sig <= 32; sig++ {
		for _, code := range []uint32{0, 1, 2, 5, 9} {
			cases = append(cases, tc{synth.Linux, minidump.ArchAMD64, sig, code, 0x45, nil})
		}
	}
	cases = append(cases, tc{synth.Android, minidump.ArchARM64, 0xffffffff, 0, 0, nil})
	for _, arch := range []minidump.Arch{minidump.ArchAMD64, minidump.ArchARM64, minidump.ArchARM} {
		for code := uint32(1); code <= 13; code++ {
			for _, flags := range []uint32{1, 2, 13, 0x101, 0x10002, 0xdeadc0de, 99} {
				cases = append(cases, tc{synth.MacOS, arch, code, flags, 0x45, nil})
			}
		}
		cases = append(cases, tc{synth.IOS, arch, 0x43507378, 0, 0x45, nil}, tc{synth.IOS, arch, 0x43506e78, 0, 0x45, nil})
	}
	for _, code := range []uint32{0x8, 0x108, 0x8308, 0x9999} {
		cases = append(cases, tc{synth.Fuchsia, minidump.ArchARM64, code, 3, 0x45, nil})
	}
	for _, code := range []uint32{6, 18, 40, 41} {
		cases = append(cases, tc{synth.Solaris, minidump.ArchX86, code, 0, 0x45, nil})
	}
	dir := t.TempDir()
	for i, c := range cases {
		ctx := minidump.NewContext(c.arch)
		ctx.SetSP(0x7010)
		ctx.SetIP(0x400123)
		b := synth.New(c.arch, c.os)
		b.AddThread(1, ctx, 0x7000, make([]byte, 64))
		e := b.SetException(1, c.code, c.addr, c.params...)
		e.Flags = c.flags
		path := filepath.Join(dir, strconv.Itoa(i)+".dmp")
		writeDump(t, b, path)
		out := oracleOutput(t, oracleStackwalk, path)
		var wantReason, wantAddr string
		for _, l := range strings.Split(string(out), "\n") {
			if r, ok := strings.CutPrefix(l, "Crash reason:  "); ok {
				wantReason = r
			}
			if a, ok := strings.CutPrefix(l, "Crash address: "); ok {
				wantAddr = a
			}
		}
		si, ex := readCrash(t, path)
		gotReason, gotAddr := minidump.CrashReason(si, ex), "0x"+strconv.FormatUint(minidump.CrashAddress(si, ex), 16)
		if gotReason != wantReason || gotAddr != wantAddr {
			t.Errorf("%+v: got %q %s, Breakpad %q %s", c, gotReason, gotAddr, wantReason, wantAddr)
		}
	}
	t.Logf("%d exceptions compared", len(cases))
}

// TestContextArchCheckAgainstBreakpad writes a thread context of one
// architecture into a dump whose system info names another: Breakpad accepts
// some pairs (an x86 context in an amd64 dump) and drops the context of the
// others; we must agree.
func TestContextArchCheckAgainstBreakpad(t *testing.T) {
	oracleStackwalk := oracle.Require(t, oracle.Stackwalk)
	arches := []minidump.Arch{minidump.ArchX86, minidump.ArchAMD64, minidump.ArchARM, minidump.ArchARM64, minidump.ArchARM64Old}
	dir := t.TempDir()
	for _, sys := range arches {
		for _, ctxArch := range arches {
			ctx := minidump.NewContext(ctxArch)
			ctx.SetSP(0x7010)
			ctx.SetIP(0x400123)
			b := synth.New(sys, synth.Linux)
			b.AddThread(1, ctx, 0x7000, make([]byte, 64))
			path := filepath.Join(dir, sys.String()+strconv.Itoa(int(sys))+"-"+strconv.Itoa(int(ctxArch))+".dmp")
			writeDump(t, b, path)
			out := oracleOutput(t, oracleStackwalk, path)
			breakpadHasContext := strings.Contains(string(out), "Found by: given as instruction pointer in context")
			f, err := minidump.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			threads, err := f.Threads()
			f.Close()
			if err != nil || len(threads) != 1 {
				t.Fatalf("threads: %v", err)
			}
			got := threads[0].Context
			if (got != nil) != breakpadHasContext {
				t.Errorf("system %v, context %v: we have context %v (%v), Breakpad %v", sys, ctxArch, got != nil, threads[0].ContextErr, breakpadHasContext)
				continue
			}
			if got != nil {
				if ip, ok := got.IP(); !ok || ip != 0x400123 {
					t.Errorf("system %v, context %v: ip %#x %v", sys, ctxArch, ip, ok)
				}
			}
		}
	}
}

// TestDuplicateStreamsAgainstBreakpad: Breakpad refuses a dump with two
// streams of a type it needs once, and uses the last stream of other types.
func TestDuplicateStreamsAgainstBreakpad(t *testing.T) {
	oracleStackwalk := oracle.Require(t, oracle.Stackwalk)
	oracleDump := oracle.Require(t, oracle.Dump)
	build := func(extra func(b *synth.Builder)) string {
		ctx := minidump.NewContext(minidump.ArchAMD64)
		ctx.SetSP(0x7010)
		ctx.SetIP(0x400123)
		b := synth.New(minidump.ArchAMD64, synth.Linux)
		b.AddThread(1, ctx, 0x7000, make([]byte, 64))
		extra(b)
		path := filepath.Join(t.TempDir(), "d.dmp")
		writeDump(t, b, path)
		return path
	}
	dup := build(func(b *synth.Builder) {
		b.AddStream(uint32(minidump.StreamBreakpadInfo), make([]byte, 12))
		b.AddStream(uint32(minidump.StreamBreakpadInfo), make([]byte, 12))
	})
	if err := exec.Command(oracleStackwalk, dup).Run(); err == nil {
		t.Fatal("Breakpad accepted two BreakpadInfo streams; test premise wrong")
	}
	if f, err := minidump.Open(dup); err == nil {
		f.Close()
		t.Error("two BreakpadInfo streams accepted")
	}
	last := build(func(b *synth.Builder) {
		b.AddStream(synth.StreamLinuxLSBRelease, []byte("DISTRIB_ID=First\n"))
		b.AddStream(synth.StreamLinuxLSBRelease, []byte("DISTRIB_ID=Second\n"))
	})
	out, _ := exec.Command(oracleDump, last).Output()
	if !strings.Contains(string(out), "DISTRIB_ID=Second") || strings.Contains(string(out), "DISTRIB_ID=First") {
		t.Fatalf("minidump_dump did not show only the last LSB stream:\n%s", out)
	}
	f, err := minidump.Open(last)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lsb, err := f.LSBRelease()
	if err != nil || lsb.Fields["DISTRIB_ID"] != "Second" {
		t.Errorf("LSB release %q, %v; Breakpad uses the last stream", lsb.Raw, err)
	}
}

// TestModuleRangesAgainstBreakpad lays out random, often overlapping module
// lists on Linux, Android and Windows, puts one thread's instruction pointer
// at each probe address, and compares Breakpad's Module lines and frame-0
// modules with BreakpadModuleRanges.
func TestModuleRangesAgainstBreakpad(t *testing.T) {
	oracleStackwalk := oracle.Require(t, oracle.Stackwalk)
	rng := rand.New(rand.NewPCG(7, 7))
	dir := t.TempDir()
	const lo, span = 0x400000, 0x10000
	for iter := 0; iter < 60; iter++ {
		osv := []synth.OS{synth.Linux, synth.Android, synth.Windows}[iter%3]
		b := synth.New(minidump.ArchAMD64, osv)
		type mod struct {
			name       string
			base, size uint64
		}
		var mods []mod
		for i := range 2 + rng.IntN(5) {
			if i > 0 && rng.IntN(6) == 0 {
				mods = append(mods, mods[rng.IntN(len(mods))]) // exact duplicate
				continue
			}
			name := "/m/mod" + strconv.Itoa(i)
			if osv == synth.Android && rng.IntN(5) == 0 {
				name = "/dev/ashmem/dalvik" + strconv.Itoa(i)
			}
			mods = append(mods, mod{name, lo + uint64(rng.IntN(14))*0x1000, uint64(1+rng.IntN(6)) * 0x1000})
		}
		for _, m := range mods {
			b.AddModule(m.name, m.base, uint32(m.size))
		}
		var probes []uint64
		for a := uint64(lo); a < lo+span+0x4000; a += 0x800 {
			probes = append(probes, a+0x10)
		}
		for i, a := range probes {
			ctx := minidump.NewContext(minidump.ArchAMD64)
			ctx.SetSP(0x7010)
			ctx.SetIP(a)
			b.AddThread(uint32(i+1), ctx, 0x7000, make([]byte, 16))
		}
		path := filepath.Join(dir, strconv.Itoa(iter)+".dmp")
		writeDump(t, b, path)
		out := oracleOutput(t, oracleStackwalk, "-m", path)
		var wantMods []string
		wantFrame := map[int]string{}
		for _, l := range strings.Split(string(out), "\n") {
			fs := strings.Split(l, "|")
			if fs[0] == "Module" {
				wantMods = append(wantMods, l)
			} else if len(fs) == 7 && fs[1] == "0" {
				ti, _ := strconv.Atoi(fs[0])
				wantFrame[ti] = fs[2]
			}
		}

		f, err := minidump.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		si, _ := f.SystemInfo()
		parsed, err := f.Modules()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		ranges, rerr := minidump.BreakpadModuleRanges(parsed, si.Platform)
		var gotMods []string
		for _, r := range ranges {
			m := parsed[r.Index]
			isMain := 0
			if m.Base == parsed[0].Base {
				isMain = 1
			}
			gotMods = append(gotMods, fmt.Sprintf("Module|%s||||0x%08x|0x%08x|%d", symfile.BaseName(m.Name), m.Base, m.End()-1, isMain))
		}
		if !slices.Equal(gotMods, wantMods) {
			t.Errorf("%v %+v (err %v):\n got %q\nwant %q", si.Platform, mods, rerr, gotMods, wantMods)
			continue
		}
		for i, a := range probes {
			got := ""
			for _, r := range ranges {
				if a >= r.Start && a <= r.End {
					got = symfile.BaseName(parsed[r.Index].Name)
				}
			}
			if got != wantFrame[i] {
				t.Errorf("%v %+v: address %#x in %q, Breakpad %q", si.Platform, mods, a, got, wantFrame[i])
			}
		}
	}
}

var dumpModuleField = regexp.MustCompile(`(?m)^  \((code_file|code_identifier|debug_file|debug_identifier|version)\) += "(.*)"$`)

// TestModuleRecordsAgainstBreakpad: odd CodeView and misc records on Windows
// and Linux; Breakpad's minidump_dump prints the derived module strings.
func TestModuleRecordsAgainstBreakpad(t *testing.T) {
	oracleDump := oracle.Require(t, oracle.Dump)
	guid := [16]byte{0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, 1, 2, 3, 4, 5, 6, 7, 8}
	unterminated := synth.CodeViewPDB70(guid, 3, "x.pdb")
	unterminated = unterminated[:len(unterminated)-1]
	misc := func(unicode bool, s string) []byte {
		b := make([]byte, 12)
		b[0] = 1 // IMAGE_DEBUG_MISC_EXENAME
		if unicode {
			b[8] = 1
			for _, r := range s {
				b = append(b, byte(r), 0)
			}
		} else {
			b = append(b, s...)
		}
		binary.LittleEndian.PutUint32(b[4:], uint32(len(b)))
		return b
	}
	badLength := misc(false, "bad.dbg")
	badLength[4]++
	records := []struct{ cv, misc []byte }{
		{synth.CodeViewPDB70(guid, 0x2a, `c:\build\app.pdb`), nil},
		{unterminated, nil},
		{synthkit.CodeViewPDB20(0x12345678, 9, "old.pdb"), nil},
		{nil, misc(false, "ascii.dbg\x00")},
		{nil, misc(true, "wide.dbg")},
		{nil, badLength},
		{synth.CodeViewPDB70(guid, 1, ""), misc(false, "fallback.dbg")}, // empty PDB name: misc record used
		{synth.CodeViewELF([]byte{0xde, 0xad, 0xbe, 0xef}), nil},
		{synth.CodeViewELF(bytes.Repeat([]byte{0xab, 0xcd}, 12)), nil},
		{[]byte("LEpB"), nil}, // signature only: too short to be read as one
		{make([]byte, 40000), nil},
		{nil, nil},
	}
	for _, osv := range []synth.OS{synth.Windows, synth.Linux, synth.MacOS} {
		b := synth.New(minidump.ArchAMD64, osv)
		for i, r := range records {
			m := b.AddModule("/lib/m"+strconv.Itoa(i), 0x10000000+uint64(i)<<20, 0x1000)
			m.CodeView, m.Misc = r.cv, r.misc
			m.TimeDateStamp = 0x5a000000 + uint32(i)
			if i%2 == 0 {
				synthkit.SetVersion(m, 1, 2, 3, uint16(i))
			}
		}
		path := filepath.Join(t.TempDir(), "d.dmp")
		writeDump(t, b, path)
		out, _ := exec.Command(oracleDump, path).Output()
		var want []string
		for _, fm := range dumpModuleField.FindAllStringSubmatch(string(out), -1) {
			want = append(want, fm[1]+"="+fm[2])
		}
		f, err := minidump.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		mods, _ := f.Modules()
		f.Close()
		var got []string
		for _, m := range mods {
			got = append(got, "code_file="+m.Name, "code_identifier="+m.CodeID, "debug_file="+m.DebugFile,
				"debug_identifier="+m.DebugID, "version="+m.Version)
		}
		if len(want) != 5*len(records) {
			t.Fatalf("%v: minidump_dump printed %d module fields:\n%s", osv, len(want), out)
		}
		for i := range want {
			if i >= len(got) || got[i] != want[i] {
				t.Errorf("%v module %d: got %q, minidump_dump %q", osv, i/5, got[min(i, len(got)-1)], want[i])
			}
		}
	}
}

// TestBadUTF16AgainstBreakpad: Breakpad's strict UTF-16 conversion makes a
// string with an unpaired surrogate unreadable (here the CSD version).
func TestBadUTF16AgainstBreakpad(t *testing.T) {
	oracleDump := oracle.Require(t, oracle.Dump)
	for _, tc := range []struct {
		patch []byte // replaces the UTF-16 of "QQ"
		ok    bool
	}{
		{[]byte{0x00, 0xd8, 0x00, 0xdc}, true},  // a valid pair: U+10000
		{[]byte{0x00, 0xd8, 0x41, 0x00}, false}, // high surrogate then 'A'
		{[]byte{0x41, 0x00, 0x00, 0xdc}, false}, // lone low surrogate
	} {
		b := synth.New(minidump.ArchAMD64, synth.Windows).SetCSDVersion("xQQ")
		data, err := b.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(data, []byte("x\x00Q\x00Q\x00"))
		if i < 0 {
			t.Fatal("CSD string not found in the synthetic dump")
		}
		copy(data[i+2:], tc.patch)
		path := filepath.Join(t.TempDir(), "d.dmp")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command(oracleDump, path).Output()
		breakpadOK := !strings.Contains(string(out), "(csd_version)                              = (null)")
		f, err := minidump.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		si, err := f.SystemInfo()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if si.HasCSDVersion != breakpadOK || breakpadOK != tc.ok {
			t.Errorf("% x: CSD readable %v (%q), Breakpad %v, want %v", tc.patch, si.HasCSDVersion, si.CSDVersion, breakpadOK, tc.ok)
		}
	}
}

// writeDump writes b's minidump to path.
func writeDump(t *testing.T, b *synth.Builder, path string) {
	t.Helper()
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readCrash opens the dump at path and returns its system info (nil if
// unreadable) and exception; a failure to open or to read the exception
// fails t.
func readCrash(t *testing.T, path string) (*minidump.SystemInfo, *minidump.Exception) {
	t.Helper()
	f, err := minidump.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	si, _ := f.SystemInfo()
	ex, err := f.Exception()
	if err != nil {
		t.Fatal(err)
	}
	return si, ex
}

// oracleOutput runs a Breakpad binary and returns its standard output; a
// failed run fails t.
func oracleOutput(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("oracle %s %q: %v", bin, args, err)
	}
	return out
}
