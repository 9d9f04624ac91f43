package oncemap

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// TestGetLoadsOnce: many goroutines asking for the same keys run one load
// per key and all see its answer, error included.
func TestGetLoadsOnce(t *testing.T) {
	var m Map[string, int]
	var loads atomic.Int32
	errB := errors.New("b failed")
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for _, k := range []string{"a", "b"} {
				v, err := m.Get(k, func() (int, error) {
					loads.Add(1)
					if k == "b" {
						return 0, errB
					}
					return 7, nil
				})
				if k == "a" && (v != 7 || err != nil) {
					t.Errorf("Get(a) = %d, %v; want 7, nil", v, err)
				}
				if k == "b" && !errors.Is(err, errB) {
					t.Errorf("Get(b) error %v; want %v", err, errB)
				}
			}
		})
	}
	wg.Wait()
	if n := loads.Load(); n != 2 {
		t.Errorf("%d loads for 2 keys", n)
	}
}
