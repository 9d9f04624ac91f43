package microdump

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

var corpusNames = []string{"arm", "arm64", "x86", "multiple", "withcrashreason", "mips32", "mips64"}

// TestCorpusHeaderAndModules checks each corpus microdump against the header
// and module lines of microdump_stackwalk -m (Breakpad's expected output):
// OS, CPU, GPU, crash reason and address, and every module in order with its
// range. The module list is the result of Breakpad's merge rules, so this
// also checks which overlapping modules survive.
func TestCorpusHeaderAndModules(t *testing.T) {
	dir := corpus.Shared(t, "corpus", "breakpad")
	for _, name := range corpusNames {
		t.Run(name, func(t *testing.T) {
			d, err := Open(filepath.Join(dir, "microdumps", "microdump-"+name+".dmp"))
			if err != nil {
				t.Fatal(err)
			}
			want := readLines(t, filepath.Join(dir, "expected", "microdump-"+name+".machine.txt"))
			var got []string
			got = append(got, fmt.Sprintf("OS|%s|%s", d.OS, d.OSVersion))
			got = append(got, fmt.Sprintf("CPU|%s||%d", d.CPU, d.CPUCount))
			got = append(got, fmt.Sprintf("GPU|%s|%s|%s", d.GPU.Version, d.GPU.Vendor, d.GPU.Renderer))
			got = append(got, fmt.Sprintf("Crash|%s|%#x|0", d.CrashReason, d.CrashAddress))
			for _, m := range d.Modules {
				got = append(got, fmt.Sprintf("Module|%s||%s|%s|0x%08x|0x%08x|0", m.Name, m.Name, m.ID, m.Base, m.Base+m.Size-1))
			}
			var header []string
			for _, l := range want {
				if l == "" {
					break
				}
				header = append(header, l)
			}
			if len(got) != len(header) {
				t.Fatalf("got %d header+module lines, Breakpad %d", len(got), len(header))
			}
			for i := range got {
				if got[i] != header[i] {
					t.Errorf("line %d:\n got  %s\n want %s", i+1, got[i], header[i])
				}
			}
		})
	}
}

// TestCorpusShrunkModules compares the modules whose lookup range was
// shrunk with the "was shrunk down by" lines Breakpad logged for the same run.
func TestCorpusShrunkModules(t *testing.T) {
	dir := corpus.Shared(t, "corpus", "breakpad")
	re := regexp.MustCompile(`The range for module (\S+) was shrunk down by (0x[0-9a-f]+) bytes`)
	for _, name := range corpusNames {
		t.Run(name, func(t *testing.T) {
			d, err := Open(filepath.Join(dir, "microdumps", "microdump-"+name+".dmp"))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			for _, l := range readLines(t, filepath.Join(dir, "expected", "logs", "microdump-"+name+".machine.stderr")) {
				if m := re.FindStringSubmatch(l); m != nil {
					want[m[1]] = m[2]
				}
			}
			got := map[string]string{}
			for _, m := range d.Modules {
				if m.ShrinkDelta() != 0 {
					got[m.Name] = fmt.Sprintf("%#x", m.ShrinkDelta())
				}
				if m.LookupEnd != m.Base+m.Size-1 {
					t.Errorf("%s: lookup range end %#x, want the module's end %#x", m.Name, m.LookupEnd, m.Base+m.Size-1)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("shrunk modules\n got  %v\n want %v", got, want)
			}
		})
	}
}

// TestCorpusContext compares the decoded context with the registers of
// frame 0 in Breakpad's human output.
func TestCorpusContext(t *testing.T) {
	dir := corpus.Shared(t, "corpus", "breakpad")
	re := regexp.MustCompile(`(\w+) = 0x([0-9a-f]+)`)
	for _, name := range corpusNames {
		t.Run(name, func(t *testing.T) {
			d, err := Open(filepath.Join(dir, "microdumps", "microdump-"+name+".dmp"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(name, "mips") {
				if d.Context != nil || len(d.RawContext) != sizeContextMIPS {
					t.Fatalf("mips: want raw context only, got context %v, %d raw bytes", d.Context, len(d.RawContext))
				}
				return
			}
			if d.Context == nil {
				t.Fatalf("no context; warnings %v", d.Warnings)
			}
			lines := readLines(t, filepath.Join(dir, "expected", "microdump-"+name+".stackwalk.txt"))
			n := 0
			in := false
			for _, l := range lines {
				if strings.HasPrefix(l, " 0  ") {
					in = true
					continue
				}
				if in && strings.Contains(l, "Found by:") {
					break
				}
				if !in {
					continue
				}
				for _, m := range re.FindAllStringSubmatch(l, -1) {
					want, _ := strconv.ParseUint(m[2], 16, 64)
					got, ok := d.Context.Get(m[1])
					if !ok || got != want {
						t.Errorf("%s = %#x (valid %v), Breakpad %#x", m[1], got, ok, want)
					}
					n++
				}
			}
			if n != d.Context.NumRegs() {
				t.Errorf("compared %d registers, context has %d", n, d.Context.NumRegs())
			}
		})
	}
}

func TestStackMemory(t *testing.T) {
	dir := corpus.Shared(t, "corpus", "breakpad")
	d, err := Open(filepath.Join(dir, "microdumps", "microdump-arm.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	// The "S 0" header line: sp FFEA68C0, start FFEA6000, length 0x2000.
	if d.Stack.Base != 0xffea6000 || len(d.Stack.Data) != 0x2000 {
		t.Fatalf("stack %#x+%#x, want 0xffea6000+0x2000", d.Stack.Base, len(d.Stack.Data))
	}
	var b [4]byte
	// Third line: "S FFEA6180 2168EAFF..." holds 0xffea6821 at 0xffea6180.
	if err := d.Stack.ReadMemory(0xffea6180, b[:]); err != nil || le.Uint32(b[:]) != 0xffea6821 {
		t.Errorf("word at 0xffea6180 = %#x, %v; want 0xffea6821", le.Uint32(b[:]), err)
	}
	if err := d.Stack.ReadMemory(0xffea8000-2, b[:]); err == nil {
		t.Error("read past the end of the stack succeeded")
	}
	if err := d.Stack.ReadMemory(0xffea5fff, b[:1]); err == nil {
		t.Error("read below the stack succeeded")
	}
}

func TestSynthetic(t *testing.T) {
	const pre = "I/google-breakpad(1): "
	lines := []string{
		"noise before",
		pre + "-----BEGIN BREAKPAD MICRODUMP-----",
		pre + "O L arm64 0A aarch64 some  version ",
		pre + "R 0000000B SIGSEGV 0x10",
		pre + "G a|b|c|d",
		pre + "S 0 1008 1000 0010",
		pre + "S 1000 0011223344556677",
		pre + "S 1008 8899AABBCCDDEEFF\r",
		pre + "M 2000 0 1000 ID1 first",
		pre + "M 2800 0 1000 ID2 overlaps_first", // refused: Linux keeps ranges exclusive
		pre + "M 0 0 0 ID3 empty",                // refused: empty
		pre + "C " + strings.Repeat("00", 12),    // wrong size: ignored with a warning
		pre + "-----END BREAKPAD MICRODUMP-----",
		pre + "M 9000 0 1000 ID4 after_end",
	}
	d, err := Parse([]byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	if d.OS != "Linux" || d.OSShort != "linux" || d.CPU != "arm64" || d.CPUCount != 10 || d.HWArch != "aarch64" || d.OSVersion != "some  version " {
		t.Errorf("system info %+v", d)
	}
	if d.CrashReason != "SIGSEGV" || d.CrashAddress != 0x10 {
		t.Errorf("crash %q %#x", d.CrashReason, d.CrashAddress)
	}
	if d.GPU != (GPU{"a", "b", "c"}) {
		t.Errorf("gpu %+v", d.GPU)
	}
	if d.Stack.Base != 0x1000 || len(d.Stack.Data) != 16 || d.Stack.Data[15] != 0xff {
		t.Errorf("stack %#x %x", d.Stack.Base, d.Stack.Data)
	}
	if len(d.Modules) != 1 || d.Modules[0].Name != "first" {
		t.Errorf("modules %+v", d.Modules)
	}
	if d.Context != nil || len(d.Warnings) != 3 {
		t.Errorf("context %v warnings %q", d.Context, d.Warnings)
	}
	if i := d.ModuleForAddress(0x2fff); i != 0 {
		t.Errorf("ModuleForAddress(0x2fff) = %d", i)
	}
	if i := d.ModuleForAddress(0x3000); i != -1 {
		t.Errorf("ModuleForAddress(0x3000) = %d", i)
	}
}

func TestErrors(t *testing.T) {
	const pre = "F/google-breakpad(1): "
	for _, tc := range []struct {
		name, in string
		is       error
	}{
		{"empty", "", nil},
		{"no begin", pre + "O A arm 01 armv7l x\n", ErrNotMicrodump},
		{"begin without tag", "-----BEGIN BREAKPAD MICRODUMP-----\n", ErrNotMicrodump},
		{"gap in stack", pre + "-----BEGIN BREAKPAD MICRODUMP-----\n" + pre + "S 1000 00112233\n" + pre + "S 2000 00\n", nil},
	} {
		_, err := Parse([]byte(tc.in))
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.is)
		}
		var fe *FormatError
		if tc.name == "gap in stack" && (!errors.As(err, &fe) || fe.Line != 3) {
			t.Errorf("%s: want FormatError on line 3, got %v", tc.name, err)
		}
	}
}

// TestHexValue pins the lenient reading of "istream >> std::hex".
func TestHexValue(t *testing.T) {
	for in, want := range map[string]uint64{
		"":                   0,
		"zz":                 0,
		"ff":                 0xff,
		"FFEA68C0":           0xffea68c0,
		"0x10":               0x10,
		"  1a ":              0x1a,
		"12g4":               0x12,
		"-1":                 ^uint64(0),
		"+f":                 0xf,
		"10000000000000000":  ^uint64(0),
		"ffffffffffffffff":   ^uint64(0),
		"0000000000000000ff": 0xff,
	} {
		if got := hexValue(in); got != want {
			t.Errorf("hexValue(%q) = %#x, want %#x", in, got, want)
		}
	}
	if got := hexBytes("0aFFz1-1abc"); fmt.Sprintf("%x", got) != "0aff00ffab0c" {
		t.Errorf("hexBytes = %x", got)
	}
}

// TestModuleMapTruncateUpper replays the cases of Breakpad's
// range_map_truncate_upper_unittest.cc (ranges as [base, high], ids from 0),
// plus the exclusive rule microdumps of other OSes get.
func TestModuleMapTruncateUpper(t *testing.T) {
	type r struct{ base, size uint64 }
	for _, tc := range []struct {
		name  string
		upper bool
		in    []r
		kept  []bool
		want  []rangeEntry
	}{
		{"SameRange", true, []r{{0, 100}, {0, 100}}, []bool{true, false}, []rangeEntry{{0, 99, 0}}},
		{"CompletelyContained", true, []r{{0, 100}, {10, 80}}, []bool{true, true}, []rangeEntry{{10, 89, 1}, {90, 99, 0}}},
		{"CompletelyContained_LargerAddedSecond", true, []r{{10, 80}, {0, 100}}, []bool{true, true}, []rangeEntry{{10, 89, 0}, {90, 99, 1}}},
		{"PartialOverlap_AtBeginning", true, []r{{0, 100}, {90, 110}}, []bool{true, true}, []rangeEntry{{0, 99, 0}, {100, 199, 1}}},
		{"PartialOverlap_AtEnd", true, []r{{50, 50}, {0, 70}}, []bool{true, true}, []rangeEntry{{0, 69, 1}, {70, 99, 0}}},
		{"OverlapAtBothEnds", true, []r{{0, 100}, {100, 100}, {50, 100}}, []bool{true, true, true}, []rangeEntry{{0, 99, 0}, {100, 149, 2}, {150, 199, 1}}},
		{"MultipleConflicts", true, []r{{10, 90}, {100, 100}, {0, 300}}, []bool{true, true, true}, []rangeEntry{{10, 99, 0}, {100, 199, 1}, {200, 299, 2}}},
		{"exclusive refuses overlap", false, []r{{0x1000, 0x1000}, {0x1800, 0x1000}}, []bool{true, false}, []rangeEntry{{0x1000, 0x1fff, 0}}},
		{"wrapping range refused", true, []r{{^uint64(0) - 1, 4}}, []bool{false}, nil},
	} {
		m := moduleMap{truncateUpper: tc.upper}
		for i, x := range tc.in {
			if got := m.store(x.base, x.size, i); got != tc.kept[i] {
				t.Errorf("%s: store %d = %v", tc.name, i, got)
			}
		}
		if got := m.entries(); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: entries %v, want %v", tc.name, got, tc.want)
		}
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

var _ = minidump.ArchARM
