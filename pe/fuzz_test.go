package pe

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func checkTyped(t *testing.T, err error) {
	var fe *FormatError
	if err != nil && !errors.As(err, &fe) {
		t.Fatalf("untyped error %T: %v", err, err)
	}
}

// FuzzFile reads arbitrary bytes as a PE image and everything the walker
// asks of one: no panic, no unbounded allocation, only *FormatError.
func FuzzFile(f *testing.F) {
	for _, name := range []string{"CrashWithException.exe", "crash.exe"} {
		if b, err := os.ReadFile(filepath.Join(symbolicDir, name)); err == nil {
			f.Add(b)
		}
	}
	if b, err := os.ReadFile("../testdata/windows/arm64/unwind-fp.dll"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := NewFile(bytes.NewReader(data), int64(len(data)))
		checkTyped(t, err)
		if err != nil {
			return
		}
		_, err = pf.CodeView()
		checkTyped(t, err)
		_, err = pf.Exports()
		checkTyped(t, err)
		fns, err := pf.RuntimeFunctions()
		checkTyped(t, err)
		for i, rf := range fns {
			if i == 64 {
				break
			}
			_, err := pf.UnwindInfoAt(rf.UnwindInfo)
			checkTyped(t, err)
		}
		afns, err := pf.ARM64Functions()
		checkTyped(t, err)
		for i, fn := range afns {
			if i == 64 {
				break
			}
			if u, err := pf.ARM64UnwindOf(fn); err == nil {
				for _, e := range u.Epilogs {
					_, err = u.EpilogCodes(e.StartIndex)
					checkTyped(t, err)
				}
			} else {
				checkTyped(t, err)
			}
		}
		var p [16]byte
		checkTyped(t, pf.ReadRVA(pf.EntryPoint, p[:]))
	})
}

// FuzzUnwindInfo decodes arbitrary bytes as an x64 UNWIND_INFO.
func FuzzUnwindInfo(f *testing.F) {
	f.Add([]byte{0x01, 0x1b, 0x04, 0x00, 0x1b, 0x52, 0x17, 0x70, 0x16, 0x60, 0x15, 0x30})
	f.Add([]byte{0x02, 0x04, 0x03, 0x00, 0x01, 0x16, 0x10, 0x06, 0x04, 0x42, 0, 0})
	f.Add([]byte{0x21, 0x0a, 0x04, 0x53, 0x0a, 0x34, 0x06, 0x00, 0x06, 0x32, 0x02, 0x70, 0x10, 0x10, 0, 0, 0x20, 0x10, 0, 0, 0x30, 0x10, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := DecodeUnwindInfo(b, 0x1000)
		checkTyped(t, err)
		if err != nil {
			return
		}
		if len(u.Codes) > 255 || int(u.FrameRegister) > 15 {
			t.Fatalf("decoded %d codes, frame register %d", len(u.Codes), u.FrameRegister)
		}
	})
}

// FuzzARM64Unwind decodes arbitrary packed words and unwind code bytes.
func FuzzARM64Unwind(f *testing.F) {
	f.Add(uint32(0x02a00079), []byte{0xc1, 0x39, 0xe3, 0xe3, 0x81, 0xe4})
	f.Add(uint32(0x0181c0c5), []byte{0xe2, 0x09, 0xc8, 0x46, 0xe6, 0xe6, 0x2c, 0xe4})
	f.Fuzz(func(t *testing.T, w uint32, b []byte) {
		u, err := DecodeARM64Packed(w | 1)
		if err != nil || len(u.Prolog) > 32 {
			t.Fatalf("packed %#x: %d codes, %v", w, len(u.Prolog), err)
		}
		codes, err := DecodeARM64Codes(b, 0)
		checkTyped(t, err)
		if len(ResolveSaveNext(codes)) != len(codes) {
			t.Fatal("ResolveSaveNext changed the count")
		}
	})
}
