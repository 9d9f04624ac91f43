package crashinfo

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// TestRealCrashes analyzes the real crashes of testdata/dumps (gcc-built
// programs on all four architectures). Two independent oracles: GNU
// objdump's reading of the dump's code bytes, and the kernel's fault
// address, which must lie in one of the accesses we compute for a
// SIGSEGV. The abort dumps crash in raise(), not on a data access.
func TestRealCrashes(t *testing.T) {
	dumps, _ := filepath.Glob(corpus.Testdata(t, "dumps", "*.dmp"))
	if len(dumps) < 32 {
		t.Fatalf("found %d dumps", len(dumps))
	}
	for _, path := range dumps {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			f, err := minidump.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			res := analyzeFile(f)
			if res.Instruction == "" {
				t.Fatal("no instruction decoded")
			}
			si, _ := f.SystemInfo()
			ex, _ := f.Exception()
			ip, _ := ex.Context.IP()
			mem, _ := f.Memory()
			code := readCode(mem, ip)
			thumb := false
			if si.Arch == minidump.ArchARM {
				cpsr, _ := f.ExceptionARMCPSR()
				thumb = cpsr&0x20 != 0
			}
			if si.Arch == minidump.ArchARM || si.Arch == minidump.ArchARM64 {
				code = code[:4]
			}
			theirs := objdump(t, si.Arch.String(), thumb, code)
			if normalize(res.Instruction) != normalize(theirs) && !x86Equivalent(normalize(res.Instruction), normalize(theirs)) &&
				!(si.Arch == minidump.ArchARM && normalize(res.Instruction) == armAliases(normalize(theirs))) {
				t.Errorf("instruction %q, objdump %q", res.Instruction, theirs)
			}
			// A raised SIGABRT (abort, a failed assert) has no faulting access.
			if strings.Contains(name, "abort") || ex.Code == 6 {
				return
			}
			// Only a fault the kernel reported (si_code > 0: SEGV_MAPERR,
			// SEGV_ACCERR) has an address: qemu-user's cores have no
			// siginfo (the dump's address is 0), and a re-raised signal
			// (the overflow cases' handler: SI_TKILL) carries the sender's
			// pid.
			if int32(ex.Flags) <= 0 && !nullAccess(res.Accesses) {
				return
			}
			addr := minidump.CrashAddress(si, ex)
			hit := false
			for _, a := range res.Accesses {
				hit = hit || addr >= a.Address && addr-a.Address < uint64(a.Size)
			}
			if !hit {
				t.Errorf("crash address %#x in none of the accesses %+v of %q", addr, res.Accesses, res.Instruction)
			}
		})
	}
}

// armAliases turns objdump's APCS names of r9-r12 (sb, sl, fp, ip) in a
// normalized instruction into ours.
func armAliases(s string) string {
	return apcsName.ReplaceAllStringFunc(s, func(m string) string {
		return map[string]string{"sb": "r9", "sl": "r10", "fp": "r11", "ip": "r12"}[m]
	})
}

var apcsName = regexp.MustCompile(`\b(sb|sl|fp|ip)\b`)

// nullAccess reports whether an access is near address 0 (a NULL
// dereference, which the qemu dumps' address 0 then names).
func nullAccess(as []Access) bool {
	for _, a := range as {
		if a.LikelyNull {
			return true
		}
	}
	return false
}

// crashCode is the crashing instruction's code bytes of a real dump.
type crashCode struct {
	arch  string
	thumb bool
	code  []byte
}

// realCrashCode reads the code at the crash address of each dump of
// testdata/dumps (4 bytes on arm and arm64, up to 15 on x86).
func realCrashCode(t *testing.T) []crashCode {
	dumps, _ := filepath.Glob(corpus.Testdata(t, "dumps", "*.dmp"))
	var out []crashCode
	for _, path := range dumps {
		f, err := minidump.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		si, _ := f.SystemInfo()
		ex, _ := f.Exception()
		if si == nil || ex == nil || ex.Context == nil {
			f.Close()
			continue
		}
		ip, _ := ex.Context.IP()
		mem, _ := f.Memory()
		c := crashCode{arch: si.Arch.String(), code: readCode(mem, ip)}
		if si.Arch == minidump.ArchARM {
			cpsr, _ := f.ExceptionARMCPSR()
			c.thumb = cpsr&0x20 != 0
		}
		if si.Arch == minidump.ArchARM || si.Arch == minidump.ArchARM64 {
			c.code = c.code[:min(4, len(c.code))]
		}
		c.code = append([]byte(nil), c.code...)
		f.Close()
		out = append(out, c)
	}
	return out
}
