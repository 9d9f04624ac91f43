package processor

import (
	"bytes"
	"sync"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// readLog records the offsets of a dump's reads.
type readLog struct {
	r    *bytes.Reader
	mu   sync.Mutex
	offs []int64
}

func (l *readLog) ReadAt(p []byte, off int64) (int, error) {
	l.mu.Lock()
	l.offs = append(l.offs, off)
	l.mu.Unlock()
	return l.r.ReadAt(p, off)
}

// TestReadPhaseReadsOnce: Process reads the thread and memory lists of a
// Windows dump once (the read phase); lastErrors and the crash analysis
// read them again before it.
func TestReadPhaseReadsOnce(t *testing.T) {
	b := synth.New(minidump.ArchAMD64, synth.Windows)
	for id := uint32(1); id <= 3; id++ {
		ctx := minidump.NewContext(minidump.ArchAMD64)
		b.AddThread(id, ctx, 0x10000*uint64(id), make([]byte, 256))
	}
	b.SetException(2, 0xc0000005, 0)
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	log := &readLog{r: bytes.NewReader(data)}
	f, err := minidump.NewFile(log, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	log.offs = nil
	if _, err := Process(f, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range f.Streams() {
		if s.Type != minidump.StreamThreadList && s.Type != minidump.StreamMemoryList {
			continue
		}
		checked++
		n := 0
		for _, off := range log.offs {
			if off == s.Off {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s read %d times, want once", s.Name, n)
		}
	}
	if checked != 2 {
		t.Fatalf("the dump has %d of the thread and memory lists, want both", checked)
	}
}
