package prologue

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// The golden file holds GNU objdump's disassembly (binutils 2.40) of the
// first instructions of functions of testdata's stripped programs, up to
// and including their first call: the instruction bytes Analyze reads and
// the oracle's reading of them. Rewrite it with
//
//	go test ./internal/prologue -run TestObjdumpPrologues -update-objdump
const goldenPath = "testdata/objdump.txt"

var updateObjdump = flag.Bool("update-objdump", false, "rewrite "+goldenPath+" from testdata's programs with the installed objdump")

// goldenFunction names a function of a testdata program by its symbol.
type goldenFunction struct {
	arch    Arch
	program string // testdata/cores/<program>.zst
	symbols string // the program's .sym under testdata/symbols
	name    string
}

var goldenFunctions = func() []goldenFunction {
	var out []goldenFunction
	add := func(a Arch, program, symbols string, names ...string) {
		for _, n := range names {
			out = append(out, goldenFunction{a, program, symbols, n})
		}
	}
	common := []string{"o0_mid", "case_O0", "check_invariant", "sort_them", "recurse", "abort",
		"__libc_start_call_main", "__libc_start_main_impl", "msort_with_tmp.part.0", "__qsort_r",
		"__vfprintf_internal", "start_thread", "_int_malloc", "malloc"}
	add(Thumb, "arm-crashdemo", "crashdemo/97C1D5E7CD3050B4FA08C2632E99C7BA0/crashdemo.sym", common...)
	add(Thumb, "arm-crashdemo", "crashdemo/97C1D5E7CD3050B4FA08C2632E99C7BA0/crashdemo.sym",
		"__futex_abstimed_wait_common", "__pthread_kill_implementation.constprop.0", "__clock_nanosleep_time64")
	add(ARM, "arm-crashdemo", "crashdemo/97C1D5E7CD3050B4FA08C2632E99C7BA0/crashdemo.sym", "arm_mid", "case_armmode")
	add(ARM, "arm-apcsdemo", "apcsdemo/F26557839AEABE3B9470EC7AE1D89C210/apcsdemo.sym", "apcs_mid", "apcs_va", "apcs_outer", "main")
	add(ARM64, "arm64-crashdemo", "crashdemo/E678F13E6A00E0BF68D3E266005170DE0/crashdemo.sym", common...)
	add(ARM64, "arm64-crashdemo", "crashdemo/E678F13E6A00E0BF68D3E266005170DE0/crashdemo.sym", "__pthread_kill_implementation.constprop.0")
	add(AMD64, "amd64-crashdemo", "crashdemo/D83F6001E70265BE29AD592DD70C2F4F0/crashdemo.sym", common...)
	add(AMD64, "amd64-crashdemo", "crashdemo/D83F6001E70265BE29AD592DD70C2F4F0/crashdemo.sym", "__futex_abstimed_wait_common", "__pthread_kill_implementation.constprop.0")
	add(X86, "x86-crashdemo", "crashdemo/49560879E67F118807D2C11D1A997E730/crashdemo.sym", common...)
	add(X86, "x86-crashdemo", "crashdemo/49560879E67F118807D2C11D1A997E730/crashdemo.sym", "__futex_abstimed_wait_common", "__pthread_kill_implementation.constprop.0", "__clock_nanosleep_time64")
	return out
}()

func objdumpTool(a Arch) (name string, args []string) {
	switch a {
	case ARM:
		return "arm-linux-gnueabihf-objdump", nil
	case Thumb:
		return "arm-linux-gnueabihf-objdump", []string{"-M", "force-thumb"}
	case ARM64:
		return "aarch64-linux-gnu-objdump", nil
	}
	return "objdump", nil
}

// symbolAddress finds name's FUNC or PUBLIC record in a .sym file.
func symbolAddress(t *testing.T, path, name string) uint64 {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		var addr, n string
		switch {
		case len(f) >= 5 && f[0] == "FUNC" && f[1] != "m":
			addr, n = f[1], strings.Join(f[4:], " ")
		case len(f) >= 4 && f[0] == "PUBLIC" && f[1] != "m":
			addr, n = f[1], strings.Join(f[3:], " ")
		default:
			continue
		}
		if n == name {
			v, err := strconv.ParseUint(addr, 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	t.Fatalf("%s: no symbol %s", path, name)
	return 0
}

var callRE = regexp.MustCompile(`\t(bl|blx|call|calll|callq)\s`)

// writeGolden disassembles every golden function with the installed
// objdump, up to its first call (at most 160 bytes).
func writeGolden(t *testing.T) {
	root := corpus.Testdata(t)
	dir := t.TempDir()
	var out bytes.Buffer
	out.WriteString("# GNU objdump of testdata's programs: each function from its symbol up to its first call\n")
	for _, g := range goldenFunctions {
		bin := filepath.Join(dir, g.program)
		if _, err := os.Stat(bin); err != nil {
			if err := os.WriteFile(bin, corpus.ReadZstd(t, filepath.Join(root, "cores", g.program+".zst")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		var base uint64
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD {
				base = p.Vaddr
				break
			}
		}
		f.Close()
		start := base + symbolAddress(t, filepath.Join(root, "symbols", g.symbols), g.name)
		if g.arch == Thumb {
			start &^= 1 // a Thumb symbol's bit 0
		}
		tool, args := objdumpTool(g.arch)
		args = append(args, "-d", "-w", fmt.Sprintf("--start-address=%#x", start), fmt.Sprintf("--stop-address=%#x", start+160), bin)
		listing, err := exec.Command(tool, args...).Output()
		if err != nil {
			t.Fatalf("%s %v: %v", tool, args, err)
		}
		fmt.Fprintf(&out, "function %s %s %s %#x\n", g.arch, g.program, g.name, start)
		for _, line := range strings.Split(string(listing), "\n") {
			if !regexp.MustCompile(`^\s+[0-9a-f]+:\t`).MatchString(line) {
				continue
			}
			out.WriteString(line + "\n")
			if callRE.MatchString(line) {
				break
			}
		}
	}
	if err := os.WriteFile(goldenPath, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goldenCase is one function of the golden file.
type goldenCase struct {
	arch   Arch
	title  string
	start  uint64
	lines  []objdumpLine
	code   []byte
	callPC uint64 // the address of the call that ends the listing, 0 when none does
}

type objdumpLine struct {
	addr uint64
	text string // mnemonic and operands
}

func readGolden(t *testing.T) []goldenCase {
	f, err := os.Open(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldenCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		if strings.HasPrefix(line, "function ") {
			var a, prog, name string
			var start uint64
			if _, err := fmt.Sscanf(line, "function %s %s %s %v", &a, &prog, &name, &start); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			c := goldenCase{title: prog + " " + name, start: start}
			for _, x := range []Arch{ARM, Thumb, ARM64, X86, AMD64} {
				if x.String() == a {
					c.arch = x
				}
			}
			out = append(out, c)
			continue
		}
		c := &out[len(out)-1]
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) < 3 {
			t.Fatalf("%q: not an objdump line", line)
		}
		addr, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(parts[0]), ":"), 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		c.code = append(c.code, hexBytes(t, c.arch, parts[1])...)
		c.lines = append(c.lines, objdumpLine{addr, strings.TrimSpace(parts[2])})
		if callRE.MatchString("\t" + parts[2]) {
			c.callPC = addr
		}
	}
	return out
}

// hexBytes converts objdump's encoding column to bytes: x86 prints bytes,
// the others little-endian halfwords (Thumb) or words.
func hexBytes(t *testing.T, a Arch, col string) []byte {
	var out []byte
	for _, h := range strings.Fields(col) {
		v, err := strconv.ParseUint(h, 16, 32)
		if err != nil {
			t.Fatalf("%q: %v", col, err)
		}
		switch len(h) {
		case 2:
			out = append(out, byte(v))
		case 4:
			out = binary.LittleEndian.AppendUint16(out, uint16(v))
		case 8:
			out = binary.LittleEndian.AppendUint32(out, uint32(v))
		default:
			t.Fatalf("%q: odd field %q", col, h)
		}
	}
	return out
}

// TestObjdumpPrologues analyzes each golden function up to its first
// call and compares the frame with what objdump's reading of the same
// instructions says (readObjdump, an independent reading of the
// mnemonics): the stack adjustment, the frame pointer and the callee-saved
// registers' slots.
func TestObjdumpPrologues(t *testing.T) {
	if *updateObjdump {
		writeGolden(t)
	}
	cases := readGolden(t)
	if len(cases) < 60 {
		t.Fatalf("%d golden functions, want the %d listed", len(cases), len(goldenFunctions))
	}
	for _, c := range cases {
		if c.callPC == 0 { // no call in the first 160 bytes: up to the last instruction listed
			c.callPC = c.lines[len(c.lines)-1].addr
		}
		got := Analyze(c.arch, c.code, c.start, c.callPC)
		want := readObjdump(t, c)
		gotSaved := map[int]int64{}
		for r, v := range got.Saved {
			if c.arch.calleeSaved(r) {
				gotSaved[r] = v
			}
		}
		if got.SPBelow != want.SPBelow || got.FPReg != want.FPReg || got.FPReg >= 0 && got.FPBelow != want.FPBelow ||
			fmt.Sprint(gotSaved) != fmt.Sprint(want.Saved) {
			t.Errorf("%s (%s): got sp-%d fp r%d=sp-%d saved %v (stop %q), objdump says sp-%d fp r%d=sp-%d saved %v",
				c.title, c.arch, got.SPBelow, got.FPReg, got.FPBelow, gotSaved, got.Stop,
				want.SPBelow, want.FPReg, want.FPBelow, want.Saved)
		}
	}
}
