package coredump

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

const coresDir = "../testdata/cores"

// TestRealCores checks what the notes say against facts recorded when the
// cores were made (testdata/cases.txt, gdb's thread list in testdata/oracle):
// architecture, thread count, which notes each producer writes.
func TestRealCores(t *testing.T) {
	for _, tc := range []struct {
		name      string
		arch      minidump.Arch
		threads   int
		ntFile    bool // the kernel and gdb write NT_FILE, qemu-user does not
		sigInfo   bool // the kernel and gdb write NT_SIGINFO, qemu-user does not
		crashLWP0 bool // the crashing thread is written first
	}{
		{"amd64-fp", minidump.ArchAMD64, 1, true, true, true},
		{"amd64-threads", minidump.ArchAMD64, 4, true, true, true},
		{"x86-libc", minidump.ArchX86, 1, true, true, true},
		{"x86-threads", minidump.ArchX86, 4, true, true, true},
		{"arm64-fp", minidump.ArchARM64, 1, false, false, true},
		{"arm64-threads", minidump.ArchARM64, 4, false, false, true},
		{"arm-fp", minidump.ArchARM, 1, false, false, true},
		{"arm-threads", minidump.ArchARM, 4, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := corpus.ReadZstd(t, filepath.Join(coresDir, tc.name+".core.zst"))
			f, err := NewFile(bytes.NewReader(raw), int64(len(raw)))
			if err != nil {
				t.Fatal(err)
			}
			if f.Arch != tc.arch || len(f.Threads) != tc.threads {
				t.Errorf("arch %v, %d threads; want %v, %d", f.Arch, len(f.Threads), tc.arch, tc.threads)
			}
			if (len(f.Files) > 0) != tc.ntFile {
				t.Errorf("%d NT_FILE entries", len(f.Files))
			}
			if tc.ntFile && !bytes.Contains([]byte(f.Files[0].Name), []byte("crashdemo")) {
				t.Errorf("first mapped file %q, want the program", f.Files[0].Name)
			}
			if (f.Threads[0].SigInfo != nil) != tc.sigInfo {
				t.Errorf("thread 0 siginfo %+v", f.Threads[0].SigInfo)
			}
			crash := f.Threads[f.CrashThread()]
			if crash.CurSig != 11 || (tc.sigInfo && crash.SigInfo.Signo != 11) {
				t.Errorf("crashing thread %d: cursig %d siginfo %+v; want SIGSEGV", crash.PID, crash.CurSig, crash.SigInfo)
			}
			if tc.crashLWP0 && f.CrashThread() != 0 {
				t.Errorf("crash thread index %d", f.CrashThread())
			}
			if f.PSInfo == nil || f.PSInfo.FName != "crashdemo" {
				t.Errorf("psinfo %+v", f.PSInfo)
			}
			if _, ok := f.AuxvValue(9); !ok {
				t.Error("no AT_ENTRY in auxv")
			}
			// Every thread's stack pointer is in stored memory.
			for _, th := range f.Threads {
				sp, _ := th.Context.SP()
				word := make([]byte, 4)
				if err := f.ReadMemory(sp, word); err != nil {
					t.Errorf("thread %d: %v", th.PID, err)
				}
			}
		})
	}
}

func TestTruncatedCores(t *testing.T) {
	raw := corpus.ReadZstd(t, filepath.Join(coresDir, "x86-threads.core.zst"))
	for _, n := range []int{0, 3, 16, 51, 52, 100, 0x1b4, 0x1b4 + 100, 0x1000, len(raw) / 2, len(raw) - 1} {
		f, err := NewFile(bytes.NewReader(raw[:n]), int64(n))
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) && !errors.Is(err, ErrNotCore) {
				t.Errorf("truncated to %d: error %v is neither a FormatError nor ErrNotCore", n, err)
			}
			continue
		}
		// Memory past the end of the truncated file is reported missing.
		for _, s := range f.Segments {
			if s.Filesz > 0 && s.Off+s.Filesz > uint64(n) {
				t.Errorf("truncated to %d: segment %+v claims bytes past the end", n, s)
			}
		}
	}
}

func FuzzNewFile(f *testing.F) {
	for _, name := range []string{"x86-threads", "arm-fp", "arm64-fp"} {
		raw := corpus.ReadZstd(f, filepath.Join(coresDir, name+".core.zst"))
		// The headers and notes are at the start; fuzzing whole cores is slow.
		f.Add(raw[:min(len(raw), 8192)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		buf := make([]byte, 64)
		for _, th := range c.Threads {
			sp, _ := th.Context.SP()
			_ = c.ReadMemory(sp, buf)
			_ = c.Readable(sp, 1<<20)
		}
		_ = c.AuxvEntries()
		_ = c.CrashThread()
		for _, m := range c.Files {
			_, _ = ImageInMemory(c, m.Start, c.Is64)
		}
	})
}
