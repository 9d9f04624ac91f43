package dumptext

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// TestOtherCPUsOracle compares the contexts of ppc, ppc64, sparc, mips,
// mips64, riscv and riscv64 with minidump_dump's: a context of the right
// size and flags with every word distinct, in a dump of that architecture,
// and the same context in a dump of another architecture (rejected).
func TestOtherCPUsOracle(t *testing.T) {
	bin := oracle.Require(t, oracle.Dump)
	for _, c := range []struct {
		name  string
		arch  minidump.Arch
		flags uint64
		size  int
		wide  bool // 64-bit context_flags
	}{
		{"ppc", minidump.ArchPPC, ctxPPC | 1, sizePPC, false},
		{"ppc64", minidump.ArchPPC64, ctxPPC64 | 1, sizePPC64, true},
		{"sparc", minidump.ArchSPARC, ctxSPARC | 3, sizeSPARC, false},
		{"mips", minidump.ArchMIPS, ctxMIPS | 2, sizeMIPS, false},
		{"mips64", minidump.ArchMIPS64, ctxMIPS64 | 2, sizeMIPS, false},
		{"riscv", minidump.ArchRISCV, ctxRISCV | 2, sizeRISCV, false},
		{"riscv64", minidump.ArchRISCV64, ctxRISCV64 | 2, sizeRISCV64, false},
	} {
		raw := make([]byte, c.size)
		for i := 0; i+4 <= len(raw); i += 4 {
			binary.LittleEndian.PutUint32(raw[i:], uint32(0x01000000+i))
		}
		if c.wide {
			binary.LittleEndian.PutUint64(raw, c.flags)
		} else {
			binary.LittleEndian.PutUint32(raw, uint32(c.flags))
		}
		for _, sys := range []minidump.Arch{c.arch, minidump.ArchAMD64} {
			t.Run(c.name+"/"+sys.String(), func(t *testing.T) {
				b := synth.New(sys, synth.Linux)
				th := b.AddThread(1, minidump.NewContext(minidump.ArchAMD64), 0x1000, make([]byte, 16))
				th.RawContext = raw
				b.AddModule("/bin/x", 0x10000, 0x1000)
				data, err := b.Bytes()
				if err != nil {
					t.Fatal(err)
				}
				got := matchOracle(t, bin, data)
				printed := strings.Contains(got, "\nMDRawContext"+strings.ToUpper(c.name[:1])) && !strings.Contains(got, "(no context)")
				if printed != (sys == c.arch) {
					t.Errorf("context printed: %v, want %v", printed, sys == c.arch)
				}
			})
		}
	}
}
