package minidump

import (
	"sync"
	"testing"
)

// TestConcurrentAccessors: a File is read by the processor's worker
// goroutines at once; accessors must be safe for concurrent use.
func TestConcurrentAccessors(t *testing.T) {
	dumps := allDumps(t)
	if len(dumps) == 0 {
		t.Skip("no corpus")
	}
	f, err := Open(dumps[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := exercise(f)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := exercise(f); got != want {
				t.Errorf("concurrent exercise saw %d errors, want %d", got, want)
			}
		}()
	}
	wg.Wait()
}
