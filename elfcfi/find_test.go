package elfcfi

import (
	"testing"
)

// TestFind checks that lookups through .eh_frame_hdr's table and through our
// own index of the section agree with the FDE list, at both ends of every
// FDE and just outside.
func TestFind(t *testing.T) {
	for _, tf := range testFiles {
		t.Run(tf.name, func(t *testing.T) {
			f := openTestELF(t, tf.binary)
			tables, err := FromELF(f)
			if err != nil {
				t.Fatal(err)
			}
			secs := map[string]*Section{"debug_frame": tables.DebugFrame}
			if eh := tables.EHFrame; eh != nil {
				if eh.hdr == nil && f.Section(".eh_frame_hdr") != nil && len(eh.data) > 4 {
					t.Fatal(".eh_frame_hdr present but its table not used")
				}
				secs["eh_frame_hdr"] = eh
				noHdr, err := NewEHFrame(eh.data, eh.addr, nil, 0, eh.arch)
				if err != nil {
					t.Fatal(err)
				}
				secs["eh_frame"] = noHdr
			}
			for name, s := range secs {
				if s == nil {
					continue
				}
				fdes, err := s.Entries()
				if err != nil {
					t.Fatal(err)
				}
				covered := map[uint64]bool{}
				nonEmpty := fdes[:0:0]
				for _, fde := range fdes {
					if fde.End > fde.Begin {
						nonEmpty = append(nonEmpty, fde)
					}
				}
				fdes = nonEmpty
				for _, fde := range fdes {
					for pc := fde.Begin; pc < fde.End && pc < fde.Begin+4; pc++ {
						covered[pc] = true
					}
					covered[fde.End-1] = true
				}
				for _, fde := range fdes {
					for _, pc := range []uint64{fde.Begin, fde.End - 1} {
						got, err := s.Find(pc)
						if err != nil || got.Offset != fde.Offset {
							t.Errorf("%s: Find(%#x) = %v, %v; want the FDE at %#x", name, pc, got, err, fde.Offset)
						}
					}
					if !covered[fde.End] {
						if got, err := s.Find(fde.End); err != ErrNotFound {
							t.Errorf("%s: Find(%#x) past an FDE = %v, %v; want ErrNotFound", name, fde.End, got, err)
						}
					}
				}
				t.Logf("%s: %d FDEs found", name, len(fdes))
			}
		})
	}
}
