package difftest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
