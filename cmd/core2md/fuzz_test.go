package main

import (
	"bytes"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/coreconv"
)

// FuzzConvert runs the whole conversion on mutated cores: it must return a
// dump or an error, within the memory bound, with code windows around the
// stacks' code pointers.
func FuzzConvert(f *testing.F) {
	f.Add(tinyCore(0x401000, 0x7ffc0000, 9, 0x401000))
	for _, name := range []string{"x86-threads", "arm64-fp"} {
		raw := readCore(f, name)
		f.Add(raw[:min(len(raw), 8192)])
	}
	// A whole kernel core (364 KiB): its stack holds pointers into the
	// vDSO, whose text is in the core, so code windows are taken.
	f.Add(readCore(f, "amd64-fp"))
	f.Fuzz(func(t *testing.T, data []byte) {
		core, err := coredump.NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		opt := defaultOptions
		opt.MaxMemory = 1 << 20
		opt.CodeWindow = 128
		_, _ = coreconv.Convert(core, opt)
	})
}
