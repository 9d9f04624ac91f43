package processor

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
)

// TestWalkMemoryMatchesOwnMemory: testdata's dumps (x86, amd64, arm,
// arm64, with their symbols) processed one after another with one
// Options.Walks, walking one thread at a time and two, give each the
// threads' frames of a processing in its own memory: the walkers' frames
// and the threads' frame slabs, reused and grown dump after dump, carry
// nothing from one dump to the next.
func TestWalkMemoryMatchesOwnMemory(t *testing.T) {
	dumps, _ := filepath.Glob("../testdata/dumps/*.dmp")
	if len(dumps) == 0 {
		t.Skip("no testdata dumps")
	}
	sup := symcompress.NewDirSupplier("../testdata/symbols")
	for _, workers := range []int{1, 2} {
		mem := new(WalkMemory)
		frames := 0
		for _, path := range dumps {
			d, err := minidump.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			want, errW := Process(d, sup, Options{Workers: workers})
			got, errG := Process(d, sup, Options{Workers: workers, Walks: mem})
			if (errW == nil) != (errG == nil) {
				t.Fatalf("%s: errors %v, %v", path, errW, errG)
			}
			if errW != nil {
				d.Close()
				continue
			}
			for i, th := range want.Threads {
				frames += len(th.Frames)
				if diff := cmp.Diff(th.Frames, got.Threads[i].Frames, cmp.AllowUnexported(minidump.Context{}),
					cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("%s (%d workers) thread %d: frames differ (-own memory +Walks):\n%s", path, workers, i, diff)
				}
			}
			d.Close()
		}
		if frames == 0 {
			t.Fatal("no frames")
		}
		kept := 0
		for _, w := range mem.workers {
			kept += len(w.slab)
		}
		t.Logf("%d workers: %d dumps, %d frames; slabs of %d frames kept", workers, len(dumps), frames, kept)
	}
}
