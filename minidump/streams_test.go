package minidump

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
)

func openShared(t *testing.T, elem ...string) *File {
	t.Helper()
	f, err := Open(corpus.Shared(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Expected values in the tests below were read from Breakpad's minidump_dump
// (the oracle binary) unless stated otherwise.

func TestCrashpadAnnotations(t *testing.T) {
	f := openShared(t, "corpus", "breakpad", "dumps", "minidump_crashpad_annotation.dmp")
	ci, err := f.CrashpadInfo()
	if err != nil {
		t.Fatal(err)
	}
	if ci.Version != 1 || ci.ReportID.String() != "725058a6-7289-480f-8a41-517bd0ba216b" ||
		ci.ClientID.String() != "051a4158-d7ae-4c3c-882e-cd6380d95137" || ci.AddressMask != 0 {
		t.Errorf("header: version %d report %s client %s", ci.Version, ci.ReportID, ci.ClientID)
	}
	wantSimple := []KeyValue{{"crashpad", "yes"}, {"plat", "iOS"}, {"prod", "xcuitest"}, {"ver", "1"}}
	if !slices.Equal(ci.SimpleAnnotations, wantSimple) {
		t.Errorf("simple annotations %q, want %q", ci.SimpleAnnotations, wantSimple)
	}
	if len(ci.Modules) != 2 {
		t.Fatalf("%d module infos, want 2", len(ci.Modules))
	}
	m0, m1 := ci.Modules[0], ci.Modules[1]
	if m0.ModuleIndex != 1 || m0.Version != 1 || m1.ModuleIndex != 100 || m1.Version != 1 {
		t.Errorf("module indexes/versions %d/%d %d/%d", m0.ModuleIndex, m0.Version, m1.ModuleIndex, m1.Version)
	}
	var names []string
	for _, a := range m0.AnnotationObjects {
		names = append(names, a.Name)
	}
	if want := []string{"exceptionReason", "exceptionName", "firstexception_bt", "firstexception", "CounterAnnotation"}; !slices.Equal(names, want) {
		t.Errorf("annotation objects %q, want %q", names, want)
	}
	if a := m0.AnnotationObjects[1]; a.Type != 1 || string(a.Value) != "NSRangeException" {
		t.Errorf("exceptionName = type %d %q", a.Type, a.Value)
	}
	if a := m0.AnnotationObjects[4]; a.Type != 32810 || string(a.Value) != "\x01\x00\x00\x00" {
		t.Errorf("CounterAnnotation = type %d %x", a.Type, a.Value)
	}
	want1 := "CoreSimulator 857.14 - Device: iPhone 14 Pro Max (C7B1E81C-20E5-4B32-BF67-DDCC43DB665D) - Runtime: iOS 16.2 (20C52) - DeviceType: iPhone 14 Pro Max"
	if !slices.Equal(m1.ListAnnotations, []string{want1}) {
		t.Errorf("module 1 list annotations %q", m1.ListAnnotations)
	}

	f2 := openShared(t, "corpus", "rust-minidump", "testdata", "simple-crashpad.dmp")
	ci, err = f2.CrashpadInfo()
	if err != nil {
		t.Fatal(err)
	}
	if ci.ReportID.String() != "42f9de72-518a-43dd-97d7-8ddc328d3662" || !slices.Equal(ci.SimpleAnnotations, []KeyValue{{"hello", "world"}}) ||
		len(ci.Modules) != 2 || ci.Modules[0].ModuleIndex != 16 || !slices.Equal(ci.Modules[0].ListAnnotations, []string{"abort() called"}) ||
		ci.Modules[1].ModuleIndex != 39 || !slices.Equal(ci.Modules[1].ListAnnotations, []string{"dyld2 mode"}) {
		t.Errorf("simple-crashpad: %+v", ci)
	}
}

func TestAssertion(t *testing.T) {
	f := openShared(t, "corpus", "rust-minidump", "testdata", "invalid-parameter.dmp")
	a, err := f.AssertionInfo()
	if err != nil {
		t.Fatal(err)
	}
	// From Breakpad's minidump_stackwalk output for this dump.
	want := `Invalid parameter passed to library function format != nullptr in function common_vfprintf, in file minkernel\crts\ucrt\src\appcrt\stdio\output.cpp at line 32`
	if a.String() != want || f.Assertion() != want {
		t.Errorf("assertion %q\nwant %q", a.String(), want)
	}
	if a.Line != 32 || a.Type != 1 || a.Function != "common_vfprintf" {
		t.Errorf("fields %+v", a)
	}
}

func TestLinuxStreams(t *testing.T) {
	f := openShared(t, "corpus", "rust-minidump", "testdata", "linux-mini.dmp")
	cmd, err := f.CmdLine()
	if err != nil || !slices.Equal(cmd, []string{"./crash"}) {
		t.Errorf("CmdLine = %q, %v", cmd, err)
	}
	env, err := f.Environ()
	if err != nil || len(env) < 3 || env[0] != "HOSTNAME=6deb9e1e1648" || env[1] != "SHLVL=1" || env[2] != "OLDPWD=/work/linux" {
		t.Errorf("Environ = %q, %v", env, err)
	}
	lsb, err := f.LSBRelease()
	if err != nil {
		t.Fatal(err)
	}
	// The description is from rust-minidump's linux_json_pretty snapshot.
	for k, v := range map[string]string{"DISTRIB_ID": "Ubuntu", "DISTRIB_RELEASE": "16.04", "DISTRIB_CODENAME": "xenial", "DISTRIB_DESCRIPTION": "Ubuntu 16.04.3 LTS"} {
		if lsb.Fields[k] != v {
			t.Errorf("lsb %s = %q, want %q", k, lsb.Fields[k], v)
		}
	}
	maps, err := f.Maps()
	if err != nil {
		t.Fatal(err)
	}
	// rust-minidump's linux_human snapshot: "Linux memory map count: 35".
	if n := strings.Count(strings.TrimRight(string(maps), "\n"), "\n") + 1; n != 35 {
		t.Errorf("%d maps lines, want 35", n)
	}
	if !strings.HasPrefix(string(maps), "00400000-0041a000 r-xp 00000000 00:47 8612374361") {
		t.Errorf("maps start %q", maps[:60])
	}
	for _, get := range []func() ([]byte, error){f.CPUInfoText, f.ProcStatus} {
		if b, err := get(); err != nil || len(b) == 0 {
			t.Errorf("raw stream: %d bytes, %v", len(b), err)
		}
	}
	auxv, err := f.Auxv()
	if err != nil || len(auxv) != 304/16 {
		t.Errorf("auxv: %d entries, %v", len(auxv), err)
	}
	// The last auxv entry of a Linux process is AT_NULL.
	if len(auxv) > 0 && auxv[len(auxv)-1] != (AuxvEntry{}) {
		t.Errorf("last auxv entry %+v, want AT_NULL", auxv[len(auxv)-1])
	}
	dso, err := f.DSODebug()
	if err != nil {
		t.Fatal(err)
	}
	// Cross-check with the module list: a shared library's load bias (l_addr)
	// is its module's base, and r_ldbase is the dynamic linker's base.
	mods, err := f.Modules()
	if err != nil {
		t.Fatal(err)
	}
	bases := map[uint64]string{}
	for _, m := range mods {
		bases[m.Base] = m.Name
	}
	named := 0
	for _, lm := range dso.Maps {
		if lm.Name == "" {
			continue
		}
		named++
		if _, ok := bases[lm.Addr]; !ok {
			t.Errorf("link map %q at %#x: no module there", lm.Name, lm.Addr)
		}
	}
	if !strings.Contains(bases[dso.LDBase], "/ld-") {
		t.Errorf("r_ldbase %#x is module %q", dso.LDBase, bases[dso.LDBase])
	}
	if dso.Version != 1 || named != 6 {
		t.Errorf("DSO debug: version %d, %d named link maps", dso.Version, named)
	}
}

func TestThreadNames(t *testing.T) {
	f := openShared(t, "corpus", "breakpad", "dumps", "thread_name_list.dmp")
	names, err := f.ThreadNames()
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint32]string{0x19a4: "main thread", 0x2274: "sleep thread", 0x2ae0: "overflow thread"}
	if len(names) != len(want) {
		t.Errorf("names %v, want %v", names, want)
	}
	for id, n := range want {
		if names[id] != n {
			t.Errorf("thread %#x name %q, want %q", id, names[id], n)
		}
	}
}

var (
	dumpThreadID    = regexp.MustCompile(`(?m)^  thread_id += 0x([0-9a-f]+)$`)
	dumpRegionCount = regexp.MustCompile(`(?m)^MinidumpMemoryList\n  region_count = (\d+)`)
	dumpDirEntry    = regexp.MustCompile(`(?m)^MDRawDirectory\n  stream_type += 0x([0-9a-f]+) \(([^)]*)\)\n  location.data_size = (\d+)\n  location.rva += 0x([0-9a-f]+)$`)
	dumpModuleField = regexp.MustCompile(`(?m)^  \((code_file|code_identifier|debug_file|debug_identifier|version)\) += "(.*)"$`)
	dumpThread      = regexp.MustCompile(`(?m)^MDRawThread\n  thread_id += 0x(\w+)\n  suspend_count += (\d+)\n  priority_class += 0x(\w+)\n  priority += 0x(\w+)\n  teb += 0x(\w+)\n  stack.start_of_memory_range = 0x(\w+)\n  stack.memory.data_size += 0x(\w+)\n  stack.memory.rva += 0x(\w+)\n  thread_context.data_size += 0x(\w+)\n  thread_context.rva += 0x(\w+)$`)
	dumpRegion      = regexp.MustCompile(`(?m)^MDMemoryDescriptor\n  start_of_memory_range = 0x(\w+)\n  memory.data_size += 0x(\w+)\n  memory.rva += 0x(\w+)$`)
	dumpException   = regexp.MustCompile(`(?m)^MDException\n  thread_id += 0x(\w+)\n  exception_record.exception_code += 0x(\w+)\n  exception_record.exception_flags += 0x(\w+)\n  exception_record.exception_record += 0x(\w+)\n  exception_record.exception_address += 0x(\w+)\n  exception_record.number_parameters += (\d+)\n((?:  exception_record.exception_information\[ ?\d+\] = 0x\w+\n)*)`)
	dumpBreakpad    = regexp.MustCompile(`(?m)^MDRawBreakpadInfo\n  validity += 0x(\w+)\n  dump_thread_id += (\S+)\n  requesting_thread_id = (\S+)$`)
	dumpMiscInfo    = regexp.MustCompile(`(?m)^MDRawMiscInfo\n  size_of_info += (\d+)\n  flags1 += 0x(\w+)\n  process_id += (\S+)\n  process_create_time += (\S+)`)
	dumpSysInfo     = regexp.MustCompile(`(?m)^MDRawSystemInfo\n  processor_architecture += 0x(\w+) .*\n  processor_level += (\d+)\n  processor_revision += 0x(\w+)\n  number_of_processors += (\d+)\n  product_type += (\d+)\n  major_version += (\d+)\n  minor_version += (\d+)\n  build_number += (\d+)\n  platform_id += 0x(\w+) .*\n  csd_version_rva += 0x\w+\n  suite_mask += 0x(\w+)\n`)
	dumpCSD         = regexp.MustCompile(`(?m)^  \(csd_version\) += (.*)$`)
	dumpModuleCount = regexp.MustCompile(`(?m)^MinidumpModuleList\n  module_count = (\d+)`)
)

// TestAgainstMinidumpDump compares thread ids, module and memory region
// counts with Breakpad's minidump_dump for every dump.
func TestAgainstMinidumpDump(t *testing.T) {
	oracleDump := oracle.Require(t, oracle.Dump)
	corpus.Shared(t, "corpus")
	for _, path := range allDumps(t) {
		if strings.Contains(path, "invalid-") {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			// minidump_dump exits 1 on some dumps; stdout is still complete, and
			// stderr says which streams Breakpad could not read.
			var out, stderr bytes.Buffer
			cmd := exec.Command(oracleDump, path)
			cmd.Stdout, cmd.Stderr = &out, &stderr
			_ = cmd.Run()
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			checkDumpDirectory(t, f, out.String())
			threads, err := f.Threads()
			if err != nil {
				t.Fatal(err)
			}
			checkDumpThreadIDs(t, f, out.String(), threads)
			checkDumpModules(t, f, out.String())
			checkDumpThreads(t, f, out.String(), threads)
			checkDumpMemoryList(t, f, out.String(), stderr.String())
			checkDumpException(t, f, out.String())
			checkDumpSystemInfo(t, f, out.String())
			checkDumpMiscInfo(t, f, out.String())
			checkDumpBreakpadInfo(t, f, out.String())
			checkDumpRegionCount(t, f, out.String())
		})
	}
}

// checkDumpDirectory compares the stream directory with minidump_dump's output.
func checkDumpDirectory(t *testing.T, f *File, out string) {
	t.Helper()
	var dir []string
	for _, m := range dumpDirEntry.FindAllStringSubmatch(out, -1) {
		dir = append(dir, strings.Join(m[1:], " "))
	}
	var gotDir []string
	for _, st := range f.Streams() {
		name := st.Name
		if strings.HasPrefix(name, "unknown") {
			name = "unknown"
		}
		gotDir = append(gotDir, strconv.FormatUint(uint64(st.Type), 16)+" "+name+" "+strconv.Itoa(int(st.Size))+" "+strconv.FormatInt(st.Off, 16))
	}
	if !slices.Equal(gotDir, dir) {
		t.Errorf("directory\n got %q\nwant %q", gotDir, dir)
	}
}

// checkDumpThreadIDs compares the thread ids, in the thread list's order with minidump_dump's output.
func checkDumpThreadIDs(t *testing.T, f *File, out string, threads []Thread) {
	t.Helper()
	// thread_id lines appear in the thread list and then the thread name list.
	var want []uint32
	for _, m := range dumpThreadID.FindAllStringSubmatch(out, len(threads)) {
		v, _ := strconv.ParseUint(m[1], 16, 32)
		want = append(want, uint32(v))
	}
	var got []uint32
	for _, th := range threads {
		got = append(got, th.ID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("thread ids %x, minidump_dump %x", got, want)
	}
}

// checkDumpModules compares the module count and Breakpad's derived strings of every module with minidump_dump's output.
func checkDumpModules(t *testing.T, f *File, out string) {
	t.Helper()
	if m := dumpModuleCount.FindStringSubmatch(out); m != nil {
		mods, _ := f.Modules()
		if strconv.Itoa(len(mods)) != m[1] {
			t.Errorf("%d modules, minidump_dump %s", len(mods), m[1])
		}
		// Breakpad's derived strings for every module.
		var want, got []string
		for _, fm := range dumpModuleField.FindAllStringSubmatch(out, -1) {
			want = append(want, fm[1]+"="+fm[2])
		}
		for _, m := range mods {
			got = append(got, "code_file="+m.Name, "code_identifier="+m.CodeID, "debug_file="+m.DebugFile,
				"debug_identifier="+m.DebugID, "version="+m.Version)
		}
		if !slices.Equal(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Errorf("module field %d: got %q, minidump_dump %q", i, got[i], want[i])
					break
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d module fields, minidump_dump %d", len(got), len(want))
			}
		}
	}
}

// checkDumpThreads compares every MDRawThread field with minidump_dump's output.
func checkDumpThreads(t *testing.T, f *File, out string, threads []Thread) {
	t.Helper()
	// Every MDRawThread field.
	var wantThreads, gotThreads []string
	for _, m := range dumpThread.FindAllStringSubmatch(out, -1) {
		wantThreads = append(wantThreads, strings.Join(m[1:], " "))
	}
	for _, th := range threads {
		gotThreads = append(gotThreads, fmt.Sprintf("%x %d %x %x %x %x %x %x %x %x", th.ID, th.SuspendCount, th.PriorityClass,
			th.Priority, th.TEB, th.Stack.Start, th.Stack.Size, th.Stack.Off, th.ContextSize, th.ContextOff))
	}
	if !slices.Equal(gotThreads, wantThreads) {
		t.Errorf("threads\n got %q\nwant %q", gotThreads, wantThreads)
	}
}

// checkDumpMemoryList compares the memory list descriptors with minidump_dump's output.
func checkDumpMemoryList(t *testing.T, f *File, out string, stderr string) {
	t.Helper()
	// Memory list descriptors (minidump_dump prints MemoryListStream, in file order).
	if _, _, err := f.stream(StreamMemoryList); err == nil {
		var want, got []string
		for _, m := range dumpRegion.FindAllStringSubmatch(out, -1) {
			want = append(want, strings.Join(m[1:], " "))
		}
		mem, err := f.Memory()
		for _, r := range mem.Regions() {
			got = append(got, fmt.Sprintf("%x %x %x", r.Base, r.Size, r.Off))
		}
		if want == nil && strings.Contains(stderr, "MinidumpMemoryList could not store memory region") {
			// Breakpad drops the whole list when regions overlap; we keep
			// the disjoint ones and report the overlap.
			if err == nil || !strings.Contains(err.Error(), "overlaps") {
				t.Errorf("overlapping memory regions not reported: %v", err)
			}
			want = got
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("memory regions\n got %q\nwant %q", got, want)
		}
	}
}

// checkDumpException compares the exception record and its parameters with minidump_dump's output.
func checkDumpException(t *testing.T, f *File, out string) {
	t.Helper()
	if m := dumpException.FindStringSubmatch(out); m != nil {
		ex, err := f.Exception()
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf("%x %x %x %x %x %d", ex.ThreadID, ex.Code, ex.Flags, ex.Record, ex.Address, ex.NumParameters)
		if want := strings.Join(m[1:7], " "); got != want {
			t.Errorf("exception %q, minidump_dump %q", got, want)
		}
		var params []string
		for _, l := range strings.Split(strings.TrimSpace(m[7]), "\n") {
			if _, v, ok := strings.Cut(l, "= 0x"); ok {
				params = append(params, v)
			}
		}
		var gotParams []string
		for _, v := range ex.Parameters {
			gotParams = append(gotParams, strconv.FormatUint(v, 16))
		}
		if !slices.Equal(gotParams, params) {
			t.Errorf("exception parameters %q, minidump_dump %q", gotParams, params)
		}
	}
}

// checkDumpSystemInfo compares the system info and CSD version with minidump_dump's output.
func checkDumpSystemInfo(t *testing.T, f *File, out string) {
	t.Helper()
	if m := dumpSysInfo.FindStringSubmatch(out); m != nil {
		si, err := f.SystemInfo()
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf("%x %d %x %d %d %d %d %d %x %x", uint16(si.Arch), si.ProcessorLevel, si.ProcessorRevision,
			si.NumProcessors, si.ProductType, si.MajorVersion, si.MinorVersion, si.BuildNumber, uint32(si.Platform), si.SuiteMask)
		if want := strings.Join(m[1:], " "); got != want {
			t.Errorf("system info %q, minidump_dump %q", got, want)
		}
		csd := "(null)"
		if si.HasCSDVersion {
			csd = strconv.Quote(si.CSDVersion)
		}
		if c := dumpCSD.FindStringSubmatch(out); c == nil || c[1] != csd {
			t.Errorf("CSD %s, minidump_dump %q", csd, c)
		}
	}
}

// checkDumpMiscInfo compares the misc info stream with minidump_dump's output.
func checkDumpMiscInfo(t *testing.T, f *File, out string) {
	t.Helper()
	if m := dumpMiscInfo.FindStringSubmatch(out); m != nil {
		mi, err := f.MiscInfo()
		if err != nil {
			t.Fatal(err)
		}
		pid, ct := "(invalid)", "(invalid)"
		if mi.Flags1&MiscInfoProcessID != 0 {
			pid = strconv.Itoa(int(mi.ProcessID))
		}
		if mi.Flags1&MiscInfoProcessTimes != 0 {
			ct = fmt.Sprintf("0x%x", mi.ProcessCreateTime)
		}
		got := fmt.Sprintf("%d %x %s %s", mi.Size, mi.Flags1, pid, ct)
		if want := strings.Join(m[1:], " "); got != want {
			t.Errorf("misc info %q, minidump_dump %q", got, want)
		}
	} else if _, err := f.MiscInfo(); err == nil {
		t.Error("MiscInfo parsed where minidump_dump shows none")
	}
}

// checkDumpBreakpadInfo compares the Breakpad info stream with minidump_dump's output.
func checkDumpBreakpadInfo(t *testing.T, f *File, out string) {
	t.Helper()
	if m := dumpBreakpad.FindStringSubmatch(out); m != nil {
		bi, err := f.BreakpadInfo()
		if err != nil {
			t.Fatal(err)
		}
		id := func(has bool, v uint32) string {
			if !has {
				return "(invalid)"
			}
			return fmt.Sprintf("0x%x", v)
		}
		got := fmt.Sprintf("%x %s %s", bi.Validity, id(bi.HasDumpThreadID, bi.DumpThreadID), id(bi.HasRequestingThreadID, bi.RequestingThreadID))
		if want := strings.Join(m[1:], " "); got != want {
			t.Errorf("breakpad info %q, minidump_dump %q", got, want)
		}
	}
}

// checkDumpRegionCount compares the memory list's region count with minidump_dump's output.
func checkDumpRegionCount(t *testing.T, f *File, out string) {
	t.Helper()
	if m := dumpRegionCount.FindStringSubmatch(out); m != nil {
		mem, _ := f.Memory()
		n := 0
		// minidump_dump counts MemoryListStream only.
		if _, s, err := f.stream(StreamMemoryList); err == nil {
			b, _ := f.bytesAt(s.Off, 4, s.Name)
			n = int(le.Uint32(b))
		}
		if strconv.Itoa(n) != m[1] || (n > 0 && len(mem.Regions()) == 0) {
			t.Errorf("%d regions, minidump_dump %s", n, m[1])
		}
	}
}

var dumpMemInfo = regexp.MustCompile(`(?m)^MDRawMemoryInfo\n  base_address += 0x([0-9a-f]+)\n  allocation_base += 0x([0-9a-f]+)\n  allocation_protection = 0x([0-9a-f]+)\n  region_size += 0x([0-9a-f]+)\n  state += 0x([0-9a-f]+)\n  protection += 0x([0-9a-f]+)\n  type += 0x([0-9a-f]+)$`)

func TestMemoryInfoAgainstMinidumpDump(t *testing.T) {
	oracleDump := oracle.Require(t, oracle.Dump)
	path := corpus.Shared(t, "corpus", "breakpad", "dumps", "tiny-exe-with-cet-xsave.dmp")
	out, _ := exec.Command(oracleDump, path).Output()
	var want []string
	for _, m := range dumpMemInfo.FindAllStringSubmatch(string(out), -1) {
		want = append(want, strings.Join(m[1:], " "))
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	infos, err := f.MemoryInfo()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, mi := range infos {
		got = append(got, strings.Join([]string{strconv.FormatUint(mi.BaseAddress, 16), strconv.FormatUint(mi.AllocationBase, 16),
			strconv.FormatUint(uint64(mi.AllocationProtect), 16), strconv.FormatUint(mi.RegionSize, 16),
			strconv.FormatUint(uint64(mi.State), 16), strconv.FormatUint(uint64(mi.Protect), 16), strconv.FormatUint(uint64(mi.Type), 16)}, " "))
	}
	if len(want) != 557 || !slices.Equal(got, want) {
		t.Errorf("memory info: %d entries, minidump_dump %d; first got %q", len(got), len(want), got[:min(2, len(got))])
	}
	// MiscInfo version 4 fields, as minidump_dump prints them.
	m, err := f.MiscInfo()
	if err != nil {
		t.Fatal(err)
	}
	if m.Size != 1364 || m.Flags1 != 0x147 || m.ProcessID != 15444 || m.ProcessCreateTime != 0x6180625a ||
		m.ProcessorMaxMhz != 2803 || m.TimeZoneID != 2 || m.BuildString != "Windows NT 10.0.22000.282" ||
		m.DbgBldStr != "crashpad.amd64,0.8.0,win" {
		t.Errorf("misc info %+v", m)
	}
	// The other Windows-only streams of this dump parse without error.
	if _, err := f.HandleData(); err != nil {
		t.Error(err)
	}
	if _, err := f.UnloadedModules(); err != nil {
		t.Error(err)
	}
}
