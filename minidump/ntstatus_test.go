package minidump_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// TestNTStatusAgainstBreakpad writes Windows EXCEPTION_IN_PAGE_ERROR dumps
// whose third parameter is an NTSTATUS value and compares the crash reason
// with Breakpad's. Our names come from mingw-w64's ntstatus.h, Breakpad's
// from the Windows 8.1 SDK; of Breakpad's 2115 error codes 1585 get the same
// name from mingw, 526 are missing from mingw (we print 0x%08x), and mingw
// names 3 codes differently and 9 codes Breakpad does not know (checked
// against Breakpad's symbolic_constants_win.cc when the table was
// generated). The hand-written table this replaced named 0xc00001a8 and
// 0xc000040a wrongly (STATUS_DEVICE_REQUIRES_CLEANING is 0x80000288).
func TestNTStatusAgainstBreakpad(t *testing.T) {
	oracleStackwalk := oracle.Require(t, oracle.Stackwalk)
	// Codes where mingw's header and Breakpad's SDK table disagree: what
	// each prints.
	differs := map[uint32][2]string{ // ours, Breakpad's
		0xc00004b3: {"STATUS_CASE_DIFFERING_NAMES_IN_DIR", "0xc00004b3"},          // newer than the 8.1 SDK
		0xc0210005: {"STATUS_FVE_FAILED_BAD_FS", "STATUS_FVE_BAD_PARTITION_SIZE"}, // renamed
		0xc00001a5: {"0xc00001a5", "STATUS_INVALID_EXCEPTION_HANDLER"},            // not in mingw
		0xc00001a8: {"0xc00001a8", "STATUS_REPAIR_NEEDED"},                        // not in mingw
	}
	codes := []uint32{
		0xc0000001, 0xc0000005, 0xc0000006, 0xc000009c, 0xc000009d, 0xc0000185,
		0xc00001a8, 0xc000020c, 0xc000040a, 0xc0000409, 0xc0220018, 0xc03a0019,
		0xc0000000, 0x80000005, 0x80000288, 0x00000000, 0x40000000, 0xffffffff,
		0xc00004b3, 0xc0210005, 0xc00001a5,
	}
	dir := t.TempDir()
	for _, code := range codes {
		b := synth.New(minidump.ArchX86, synth.Windows)
		ctx := minidump.NewContext(minidump.ArchX86)
		ctx.SetIP(0x1000)
		ctx.SetSP(0x7010)
		b.AddThread(1, ctx, 0x7000, make([]byte, 32))
		b.SetException(1, minidump.ExceptionInPageError, 0x1000, 0, 0x5000, uint64(code))
		path := filepath.Join(dir, fmt.Sprintf("%08x.dmp", code))
		writeDump(t, b, path)
		out := oracleOutput(t, oracleStackwalk, "-m", path)
		var want string
		for _, l := range strings.Split(string(out), "\n") {
			if rest, ok := strings.CutPrefix(l, "Crash|"); ok {
				want, _, _ = strings.Cut(rest, "|")
			}
		}
		si, ex := readCrash(t, path)
		got := minidump.CrashReason(si, ex)
		if d, ok := differs[code]; ok {
			if prefix := "EXCEPTION_IN_PAGE_ERROR_READ / "; got != prefix+d[0] || want != prefix+d[1] {
				t.Errorf("%#08x: got %q, Breakpad %q; want the known difference %q", code, got, want, d)
			}
			continue
		}
		if got != want {
			t.Errorf("%#08x: got %q, Breakpad %q", code, got, want)
		}
	}
}
