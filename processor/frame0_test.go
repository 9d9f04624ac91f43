package processor

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// flagsDump is a Linux dump whose crashed thread has a two-frame
// frame-pointer chain in module prog; every register holds a distinct value
// and the context's flags are arch|groups (groups: CONTEXT_CONTROL 1,
// CONTEXT_INTEGER 2, CONTEXT_FLOATING_POINT 8).
func flagsDump(t *testing.T, arch minidump.Arch, groups uint32) []byte {
	t.Helper()
	word, fp, flags := 8, "", uint32(0)
	switch arch {
	case minidump.ArchX86:
		word, fp, flags = 4, "ebp", synth.ContextFlagsX86
	case minidump.ArchAMD64:
		fp, flags = "rbp", synth.ContextFlagsAMD64
	case minidump.ArchARM:
		word, fp, flags = 4, "r11", synth.ContextFlagsARM
		groups &^= 1 // ARM has no control group
	case minidump.ArchARM64:
		fp, flags = "x29", synth.ContextFlagsARM64
	}
	const base = fpChainBase
	stack, f0 := fpChain(t, word)
	ctx := minidump.NewContext(arch)
	for i := range ctx.NumRegs() {
		ctx.SetIndex(i, uint64(0x1110*(i+1)))
	}
	ctx.SetIP(0x401100)
	ctx.SetSP(base)
	ctx.Set(fp, f0)
	if arch == minidump.ArchARM || arch == minidump.ArchARM64 {
		ctx.Set("lr", 0x401050)
	}
	ctx.Flags = flags | groups
	b := synth.New(arch, synth.Linux)
	b.AddThread(1, ctx, base, stack)
	b.AddModule("/bin/prog", 0x400000, 0x10000).SetBuildID(bytes.Repeat([]byte{0x11}, 20))
	b.SetException(1, 11, 0)
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

var (
	frameLine  = regexp.MustCompile(`^ ?\d+  (.*)$`)
	regAssign  = regexp.MustCompile(`(\w+) = 0x([0-9a-f]+)`)
	compatOpts = Options{Mode: walker.Breakpad}
)

// walkText renders the crashed thread as Breakpad's human report does: per
// frame the module offset, the registers valid in the frame's context (all
// of them in frame 0, which Breakpad prints whatever the flags) and the trust.
func walkText(t *testing.T, data []byte, opts Options) []string {
	t.Helper()
	d := openBytes(t, data)
	st, err := Process(d, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	th := st.Threads[st.RequestingThread]
	var out []string
	for _, f := range th.Frames {
		var regs []string
		for i, name := range minidump.RegisterNames(f.Context.Arch) {
			if v, ok := f.Context.Index(i); ok {
				regs = append(regs, fmt.Sprintf("%s=%x", name, v))
			}
		}
		off := f.ReturnAddress() // the address Breakpad prints
		if f.Module != nil {
			off -= f.Module.Base
		}
		out = append(out, fmt.Sprintf("prog + 0x%x %s %s", off, strings.Join(sortedCopy(regs), " "), f.Trust))
	}
	return out
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j] < c[j-1]; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
	return c
}

// breakpadWalkText parses Breakpad's human report of the crashed thread into
// walkText's form.
func breakpadWalkText(out string) []string {
	var frames []string
	var regs []string
	var head string
	in := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "Thread 0 (crashed)"):
			in = true
		case !in:
		case l == "":
			return frames
		case frameLine.MatchString(l):
			head, regs = frameLine.FindStringSubmatch(l)[1], nil
		case strings.HasPrefix(strings.TrimSpace(l), "Found by: "):
			frames = append(frames, fmt.Sprintf("%s %s %s", head, strings.Join(sortedCopy(regs), " "), strings.TrimPrefix(strings.TrimSpace(l), "Found by: ")))
		default:
			for _, m := range regAssign.FindAllStringSubmatch(l, -1) {
				v, _ := strconv.ParseUint(m[2], 16, 64)
				regs = append(regs, fmt.Sprintf("%s=%x", m[1], v))
			}
		}
	}
	return frames
}

// TestFrameZeroIgnoresContextFlags: Breakpad reads every register of a
// thread's context whatever its flags say. The oracle, on dumps whose flags
// omit the integer or the control group (or name no group), prints all of
// frame 0's registers and walks exactly as with full flags. With
// --breakpad-compat our frames and registers equal Breakpad's; by default
// the walk is the same as with full flags.
func TestFrameZeroIgnoresContextFlags(t *testing.T) {
	bin := oracle.Require(t, oracle.Stackwalk)
	dir := t.TempDir()
	variants := []struct {
		name   string
		groups uint32
	}{{"full", 0xb}, {"no-integer", 0x9}, {"no-control", 0xa}, {"fp-only", 0x8}, {"no-groups", 0}}
	for _, arch := range []minidump.Arch{minidump.ArchX86, minidump.ArchAMD64, minidump.ArchARM, minidump.ArchARM64} {
		var fullDefault []string
		for _, v := range variants {
			name := arch.String() + "-" + v.name
			data := flagsDump(t, arch, v.groups)
			path := filepath.Join(dir, name+".dmp")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, path).Output()
			if err != nil {
				t.Fatalf("%s: oracle: %v", name, err)
			}
			want := breakpadWalkText(string(out))
			if len(want) < 3 {
				t.Fatalf("%s: Breakpad walked %d frames: %q", name, len(want), want)
			}
			if got := walkText(t, data, compatOpts); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s --breakpad-compat:\n got %q\nwant %q (Breakpad)", name, got, want)
			}
			got := walkText(t, data, Options{})
			if v.name == "full" {
				fullDefault = got
			} else if strings.Join(got, "\n") != strings.Join(fullDefault, "\n") {
				t.Errorf("%s default walk:\n got %q\nwant the walk with full flags %q", name, got, fullDefault)
			}
		}
	}
}
