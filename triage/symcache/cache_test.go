package symcache

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// newCache is NewContext over a loader that takes no context.
func newCache(load func(symfile.ModuleKey) (*symfile.File, error), maxBytes int64) *Cache {
	return NewContext(func(_ context.Context, m symfile.ModuleKey) (*symfile.File, error) { return load(m) }, maxBytes)
}

// fakeLoader makes a symbol file of about size bytes per module named
// "<name>:<size>", and ErrNotFound for names starting "none".
type fakeLoader struct {
	calls atomic.Int32
	per   sync.Map // name -> *atomic.Int32
}

func (l *fakeLoader) load(m symfile.ModuleKey) (*symfile.File, error) {
	l.calls.Add(1)
	n, _ := l.per.LoadOrStore(m.DebugFile, new(atomic.Int32))
	n.(*atomic.Int32).Add(1)
	if strings.HasPrefix(m.DebugFile, "none") {
		return nil, fmt.Errorf("%w: %s", symfile.ErrNotFound, m.DebugFile)
	}
	var size int
	fmt.Sscanf(m.DebugFile[strings.IndexByte(m.DebugFile, ':')+1:], "%d", &size)
	text := "MODULE Linux x86_64 0123 " + m.DebugFile + "\nFUNC 1000 10 0 f\n"
	text += strings.Repeat("INFO x\n", max(0, size-len(text))/7)
	return symfile.NewFile([]byte(text), m.DebugFile)
}

func (l *fakeLoader) count(name string) int32 {
	n, ok := l.per.Load(name)
	if !ok {
		return 0
	}
	return n.(*atomic.Int32).Load()
}

func key(name string) symfile.ModuleKey { return symfile.ModuleKey{DebugFile: name, DebugID: "0123"} }

func TestLRUEvictionAndBound(t *testing.T) {
	l := &fakeLoader{}
	probe, _ := (&fakeLoader{}).load(key("p:1000"))
	unit := fileBytes(probe)
	c := newCache(l.load, unit*5/2)
	use := func(names ...string) {
		s := c.Session()
		for _, n := range names {
			f, err := s.Symbols(key(n))
			if err != nil || f == nil {
				t.Fatalf("%s: %v", n, err)
			}
		}
		s.Close()
	}
	use("a:1000")
	use("b:1000")
	use("a:1000") // a is now the most recent
	use("c:1000") // over 2500: b, the least recent, goes
	if st := c.Stats(); st.Evictions != 1 || st.Bytes > unit*5/2 || st.Files != 2 {
		t.Errorf("stats %+v: want 1 eviction, 2 files, at most %d bytes", st, unit*5/2)
	}
	use("a:1000")
	use("b:1000")
	if l.count("a:1000") != 1 || l.count("b:1000") != 2 {
		t.Errorf("loads: a %d (want 1: kept as recently used), b %d (want 2: evicted, reloaded)", l.count("a:1000"), l.count("b:1000"))
	}
}

func TestPinnedFilesStay(t *testing.T) {
	l := &fakeLoader{}
	c := newCache(l.load, 0) // keeps no unpinned file
	s := c.Session()
	f1, _ := s.Symbols(key("a:500"))
	other := c.Session()
	f2, _ := other.Symbols(key("a:500"))
	other.Close()
	if f1 != f2 {
		t.Error("two sessions got different files for one module")
	}
	// Still pinned by s: usable.
	if sym, ok := f1.Lookup(0x1000); !ok || sym.Name != "f" {
		t.Errorf("lookup in a pinned file: %+v %v", sym, ok)
	}
	s.Close()
	if st := c.Stats(); st.Files != 0 || st.Evictions != 1 {
		t.Errorf("after the last session: %+v, want the file evicted", st)
	}
	if _, err := s.Symbols(key("a:500")); !errors.Is(err, errClosed) {
		t.Errorf("closed session: %v", err)
	}
}

func TestNegativeCacheAndSingleLoad(t *testing.T) {
	l := &fakeLoader{}
	c := newCache(l.load, 1<<20)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := c.Session()
			defer s.Close()
			if _, err := s.Symbols(key("none")); !errors.Is(err, symfile.ErrNotFound) {
				t.Errorf("none: %v", err)
			}
			if f, err := s.Symbols(key("x:100")); f == nil || err != nil {
				t.Errorf("x: %v", err)
			}
		}()
	}
	wg.Wait()
	if l.count("none") != 1 || l.count("x:100") != 1 {
		t.Errorf("loads: none %d, x %d; want 1 each for the whole run", l.count("none"), l.count("x:100"))
	}
}

func TestLoaderPanicIsAnError(t *testing.T) {
	c := newCache(func(symfile.ModuleKey) (*symfile.File, error) { panic("boom") }, 100)
	s := c.Session()
	defer s.Close()
	if _, err := s.Symbols(key("p")); err == nil {
		t.Error("a panicking loader gave no error")
	}
}

// The functions parsed by lookups count towards the bound.
func TestParsedFunctionsCount(t *testing.T) {
	text := "MODULE Linux x86_64 0123 grow\n"
	for i := range 200 {
		text += fmt.Sprintf("FUNC %x 10 0 function_number_%d\n%x 10 %d 0\n", 0x1000+i*0x10, i, 0x1000+i*0x10, i+1)
	}
	text += "FILE 0 a.c\n"
	load := func(symfile.ModuleKey) (*symfile.File, error) { return symfile.NewFile([]byte(text), "grow") }
	f0, _ := load(symfile.ModuleKey{})
	c := newCache(load, fileBytes(f0)+100) // room for the file as loaded, not for its parsed functions
	s := c.Session()
	f, _ := s.Symbols(key("grow"))
	for i := range 200 {
		if sym, ok := f.Lookup(uint64(0x1000 + i*0x10)); !ok || sym.Line != i+1 {
			t.Fatalf("lookup %d: %+v", i, sym)
		}
	}
	s.Close()
	if st := c.Stats(); st.Evictions != 1 || st.Files != 0 {
		t.Errorf("after parsing 200 functions: %+v, want the file evicted (parsed %d bytes more)", st, f.HeapBytes()-f0.HeapBytes())
	}
}

// TestCancelledLoadNotKept: a load its session's context cancelled (a
// batch dump past --timeout) is not the module's answer for the run: a
// session that waited for it loads again with its own context, and so
// does a later one.
func TestCancelledLoadNotKept(t *testing.T) {
	started, unblock := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	c := NewContext(func(ctx context.Context, m symfile.ModuleKey) (*symfile.File, error) {
		if calls.Add(1) == 1 {
			close(started)
			<-ctx.Done() // a download the timeout cuts short
			<-unblock
			return nil, ctx.Err()
		}
		return symfile.NewFile([]byte("MODULE Linux x86_64 0123 a\nFUNC 1000 10 0 f\n"), "a")
	}, 1<<20)
	ctx, cancel := context.WithCancel(context.Background())
	timedOut := c.SessionContext(ctx)
	done := make(chan error, 1)
	go func() { _, err := timedOut.Symbols(key("a")); done <- err }()
	<-started
	waiting := make(chan *symfile.File, 1)
	go func() { f, _ := c.Session().Symbols(key("a")); waiting <- f }()
	cancel()
	close(unblock)
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("timed-out session: %v, want its cancellation", err)
	}
	if f := <-waiting; f == nil {
		t.Error("the waiting session got the cancelled answer")
	}
	if f, err := c.Session().Symbols(key("a")); f == nil || err != nil {
		t.Errorf("later session: %v, %v", f, err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d loads, want 2 (the cancelled one, then one for the run)", n)
	}
}
