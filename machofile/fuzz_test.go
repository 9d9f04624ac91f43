package machofile

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
)

// FuzzSlices reads arbitrary bytes as a thin or fat Mach-O file and asks
// for everything the package gives: no panic, no unbounded read, typed
// errors.
func FuzzSlices(f *testing.F) {
	if data, err := os.ReadFile(symbolicMacOS + "crash"); err == nil {
		f.Add(data[:8192])
		f.Add(makeFat(data[:8192]))
	}
	f.Add([]byte("\xcf\xfa\xed\xfe\x07\x00\x00\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Default.Run(t, func() {
			slices, err := Slices(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				if !errors.As(err, new(*FormatError)) {
					t.Fatalf("untyped error %T: %v", err, err)
				}
				return
			}
			for _, s := range slices {
				s.DebugID()
				s.FunctionStarts()
				for _, sec := range s.Sections {
					s.SectionData(sec.Seg, sec.Name)
				}
			}
		})
	})
}
