package minidump_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Names and values from Microsoft's winerror.h and ntstatus.h.
func TestWindowsErrorString(t *testing.T) {
	for code, want := range map[uint32]string{
		0:          "ERROR_SUCCESS",
		2:          "ERROR_FILE_NOT_FOUND",
		5:          "ERROR_ACCESS_DENIED",
		183:        "ERROR_ALREADY_EXISTS",
		1722:       "RPC_S_SERVER_UNAVAILABLE",
		0xc0000005: "STATUS_ACCESS_VIOLATION",
		0xc06d007e: "FACILITY_VISUALCPP / ERROR_MOD_NOT_FOUND", // delay-load DLL not found
		0x12345678: "unknown 0x12345678",
	} {
		if got := minidump.WindowsErrorString(code); got != want {
			t.Errorf("%#x: %q, want %q", code, got, want)
		}
	}
}

// TestThreadLastError reads LastErrorValue 13 pointers into the TEB (TEB
// layouts: 0x34 on x86, 0x68 on amd64).
func TestThreadLastError(t *testing.T) {
	for _, c := range []struct {
		arch minidump.Arch
		word int
		off  uint64
	}{{minidump.ArchX86, 4, 0x34}, {minidump.ArchAMD64, 8, 0x68}} {
		const teb = 0x7ffde000
		page := make([]byte, 0x100)
		binary.LittleEndian.PutUint32(page[c.off:], 183)
		b := synth.New(c.arch, synth.Windows)
		ctx := minidump.NewContext(c.arch)
		ctx.SetIP(0x1000)
		ctx.SetSP(0x8000)
		b.AddThread(1, ctx, 0x8000, make([]byte, 16)).TEB = teb
		b.AddThread(2, ctx, 0x9000, make([]byte, 16)).TEB = 0x5000 // not captured
		b.AddMemory(teb, page)
		raw, err := b.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		f, err := minidump.NewFile(bytes.NewReader(raw), int64(len(raw)))
		if err != nil {
			t.Fatal(err)
		}
		threads, _ := f.Threads()
		mem, _ := f.Memory()
		if code, ok := minidump.ThreadLastError(&threads[0], mem, c.word); !ok || code != 183 {
			t.Errorf("%v: %d %v, want 183", c.arch, code, ok)
		}
		if _, ok := minidump.ThreadLastError(&threads[1], mem, c.word); ok {
			t.Errorf("%v: a TEB outside the captured memory read", c.arch)
		}
	}
}
