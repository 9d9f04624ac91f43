package difftest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// TestCallEncodingsMatchAssembler checks the generator's direct-call
// encoders against the GNU assemblers (skipped where a cross assembler is
// missing): each call `bl .+D` / `call .+D` assembled at a known offset
// must be the bytes the encoder gives for that site and target.
func TestCallEncodingsMatchAssembler(t *testing.T) {
	deltas := []int64{0x100, -0x100, 0x12344, -0x2000c, 0x7ffc, -0x4, 0x3f0008}
	for _, tc := range []struct {
		name, as, objcopy string
		asFlags           []string
		header, mnemonic  string
		size              int
		enc               func(site, target uint64) []byte
	}{
		{"arm", "arm-linux-gnueabihf-as", "arm-linux-gnueabihf-objcopy", nil, ".syntax unified\n.arm\n", "bl", 4, encBLA32},
		{"thumb", "arm-linux-gnueabihf-as", "arm-linux-gnueabihf-objcopy", nil, ".syntax unified\n.thumb\n", "bl", 4, encBLT32},
		{"arm64", "aarch64-linux-gnu-as", "aarch64-linux-gnu-objcopy", nil, "", "bl", 4, encBLA64},
		{"x86", "as", "objcopy", []string{"--32"}, ".code32\n", "call", 5, encCallX86},
		{"amd64", "as", "objcopy", []string{"--64"}, ".code64\n", "call", 5, encCallX86},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, tool := range []string{tc.as, tc.objcopy} {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skipf("%s not installed", tool)
				}
			}
			dir := t.TempDir()
			src := tc.header + ".text\n"
			for _, d := range deltas {
				src += fmt.Sprintf("%s .%+d\n", tc.mnemonic, d)
			}
			s, o, bin := filepath.Join(dir, "a.s"), filepath.Join(dir, "a.o"), filepath.Join(dir, "a.bin")
			if err := os.WriteFile(s, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(tc.as, append(tc.asFlags, s, "-o", o)...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", tc.as, err, out)
			}
			if out, err := exec.Command(tc.objcopy, "-O", "binary", "-j", ".text", o, bin).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", tc.objcopy, err, out)
			}
			code, err := os.ReadFile(bin)
			if err != nil {
				t.Fatal(err)
			}
			if len(code) != len(deltas)*tc.size {
				t.Fatalf("assembled %d bytes, want %d:\n%s", len(code), len(deltas)*tc.size, src)
			}
			for i, d := range deltas {
				site := uint64(i * tc.size)
				want := code[i*tc.size:][:tc.size]
				if got := tc.enc(site, site+uint64(d)); !bytes.Equal(got, want) {
					t.Errorf("%s .%+d at %#x: encoder % x, assembler % x", tc.mnemonic, d, site, got, want)
				}
			}
		})
	}
}

// TestCodeKeepsCase: GenerateCode changes only the dump's memory: the
// chain, stack and symbols are Generate's.
func TestCodeKeepsCase(t *testing.T) {
	for _, fl := range Flavors {
		for seed := int64(1); seed <= 5; seed++ {
			a, err := Generate(fl, seed)
			if err != nil {
				t.Fatal(err)
			}
			b, err := GenerateCode(fl, seed)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(a.Truth, "\n") != strings.Join(b.Truth, "\n") || len(a.Symbols) != len(b.Symbols) {
				t.Fatalf("%s seed %d: code changed the case", fl.Name, seed)
			}
			for k, v := range a.Symbols {
				if b.Symbols[k] != v {
					t.Fatalf("%s seed %d: code changed symbol file %s", fl.Name, seed, k)
				}
			}
			if len(b.Dump) <= len(a.Dump) {
				t.Errorf("%s seed %d: no code in the dump (%d bytes, without code %d)", fl.Name, seed, len(b.Dump), len(a.Dump))
			}
		}
	}
}

// disassembly is one instruction per end address: mnemonic and operands.
type disassembly map[uint64][2]string

// objdump disassembles a raw code image at vma with the GNU objdump for fl.
func objdump(t *testing.T, fl Flavor, code []byte, vma uint64) disassembly {
	t.Helper()
	tool, args := "objdump", []string{"-m", "i386"}
	switch fl.Arch {
	case minidump.ArchAMD64:
		args = []string{"-m", "i386:x86-64"}
	case minidump.ArchARM:
		tool, args = "arm-linux-gnueabihf-objdump", []string{"-m", "arm"}
		if fl.Thumb {
			args = append(args, "-M", "force-thumb")
		}
	case minidump.ArchARM64, minidump.ArchARM64Old:
		tool, args = "aarch64-linux-gnu-objdump", []string{"-m", "aarch64"}
	}
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("%s not installed", tool)
	}
	bin := filepath.Join(t.TempDir(), "text.bin")
	if err := os.WriteFile(bin, code, 0o644); err != nil {
		t.Fatal(err)
	}
	args = append(args, "-D", "-b", "binary", fmt.Sprintf("--adjust-vma=%#x", vma), bin)
	out, err := exec.Command(tool, args...).Output()
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	d := disassembly{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 3 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		addr, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(f[0], ":")), 16, 64)
		if err != nil {
			continue
		}
		n := 0
		for _, h := range strings.Fields(f[1]) {
			n += len(h) / 2
		}
		// ARM: mnemonic TAB operands; x86: mnemonic and operands in one field.
		asm := strings.Fields(strings.Join(f[2:], " "))
		if len(asm) == 0 {
			continue
		}
		d[addr+uint64(n)] = [2]string{asm[0], strings.Join(asm[1:], " ")}
	}
	return d
}

// TestCodeLayoutDisassembles checks the generated code with the GNU
// disassemblers: at every call site the instruction that ends there is the
// call the layout says (direct to its target's start, or indirect), or no
// call; every function ends with a return.
func TestCodeLayoutDisassembles(t *testing.T) {
	for _, name := range []string{"linux-x86", "windows-amd64", "android-arm", "android-arm-thumb", "ios-arm64"} {
		fl, _ := FlavorByName(name)
		t.Run(name, func(t *testing.T) {
			sites := map[siteKind]int{}
			for seed := int64(1); seed <= 10; seed++ {
				c, err := GenerateCode(fl, seed)
				if err != nil {
					t.Fatal(err)
				}
				for m, text := range c.code.text {
					d := objdump(t, fl, text, textStart(m))
					for _, f := range m.funcs {
						if got := d[f.start+f.size]; !strings.HasPrefix(got[0], "ret") && !strings.HasPrefix(got[0], "bx") {
							t.Errorf("seed %d: %s ends with %q, want a return", seed, f.name, got)
						}
						for off, cs := range c.code.sites[f] {
							sites[cs.kind]++
							got := d[f.start+off]
							isCall := strings.HasPrefix(got[0], "call") || strings.HasPrefix(got[0], "bl")
							switch cs.kind {
							case siteNone:
								if isCall {
									t.Errorf("seed %d: %s+%#x: %q, want no call", seed, f.name, off, got)
								}
							case siteIndirect:
								indirect := strings.HasPrefix(got[1], "*") || strings.HasPrefix(got[0], "blx") || strings.HasPrefix(got[0], "blr")
								if !isCall || !indirect {
									t.Errorf("seed %d: %s+%#x: %q, want an indirect call", seed, f.name, off, got)
								}
							default:
								want := fmt.Sprintf("0x%x", cs.target.start)
								if !isCall || got[1] != want && !strings.HasPrefix(got[1], want+" ") {
									t.Errorf("seed %d: %s+%#x: %q, want a call to %s", seed, f.name, off, got, want)
								}
							}
						}
					}
				}
			}
			t.Logf("call sites checked: %v", sites)
			for _, k := range []siteKind{siteDirect, siteIndirect, siteOther} {
				if sites[k] == 0 {
					t.Errorf("no call site of kind %s", k)
				}
			}
		})
	}
}
