package crashinfo

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

var allArches = []struct {
	arch  minidump.Arch
	thumb bool
}{{minidump.ArchX86, false}, {minidump.ArchAMD64, false}, {minidump.ArchARM, false},
	{minidump.ArchARM, true}, {minidump.ArchARM64, false}}

func analyzeBytes(arch minidump.Arch, thumb bool, code []byte, valid bool) Result {
	ctx := minidump.NewContext(arch)
	if valid {
		for _, n := range minidump.RegisterNames(arch) {
			ctx.Set(n, 0)
		}
	}
	ctx.SetIP(ip)
	return Analyze(&Input{Arch: arch, Thumb: thumb, Context: &ctx, Memory: byteMemory{ip, code}})
}

// TestBadCode: missing, truncated or undecodable code gives no
// instruction and no accesses.
func TestBadCode(t *testing.T) {
	cases := map[string]map[minidump.Arch][]byte{
		"missing":   {},
		"truncated": {minidump.ArchX86: {0x8b}, minidump.ArchAMD64: {0x48, 0x8b}, minidump.ArchARM: {0x00}, minidump.ArchARM64: {0x01, 0x00}},
		"undecodable": {minidump.ArchX86: {0x0f, 0x0b + 0xf0}, minidump.ArchAMD64: {0x06}, // push es: invalid in 64-bit mode
			minidump.ArchARM: {0xff, 0xff, 0xff, 0xff}, minidump.ArchARM64: {0x00, 0x00, 0x00, 0x00}},
	}
	for name, byArch := range cases {
		for _, a := range allArches {
			code := byArch[a.arch]
			if a.thumb && name != "missing" {
				code = []byte{0xff}
			}
			r := analyzeBytes(a.arch, a.thumb, code, true)
			if r.Instruction != "" || r.AccessesKnown || r.Accesses != nil || r.Adjusted != nil || r.BitFlips != nil {
				t.Errorf("%s %v thumb=%v % x: %+v", name, a.arch, a.thumb, code, r)
			}
		}
	}
	if r := Analyze(nil); r.Instruction != "" {
		t.Error("nil input analyzed")
	}
}

// TestUnknownRegister: a register the address needs but the context lacks
// leaves the accesses unknown, the instruction still printed.
func TestUnknownRegister(t *testing.T) {
	r := analyzeBytes(minidump.ArchAMD64, false, []byte{0x8b, 0x03}, false) // mov eax, [rbx]
	if r.Instruction == "" || r.AccessesKnown || r.Accesses != nil {
		t.Errorf("%+v", r)
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, c := range archCases {
		f.Add(uint8(c.arch), c.thumb, c.code)
	}
	f.Fuzz(func(t *testing.T, arch uint8, thumb bool, code []byte) {
		for _, a := range allArches {
			if uint8(a.arch) == arch%13 || arch == 255 {
				analyzeBytes(a.arch, thumb, code, arch%2 == 0)
			}
		}
	})
}

// FuzzAnalyzeDump runs the whole analysis on hostile dumps, seeded with the
// real crashes of testdata/dumps.
func FuzzAnalyzeDump(f *testing.F) {
	dumps, _ := filepath.Glob(corpus.Testdata(f, "dumps", "*.dmp"))
	for _, p := range dumps {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		_ = analyzeFile(file)
	})
}
