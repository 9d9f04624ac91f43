package symsrv

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// The server sees at most N requests at once, however many modules are
// prefetched, and every module gets the answer a serial lookup gives.
func TestSupplierPrefetchBound(t *testing.T) {
	const modules = 24
	var inFlight, peak atomic.Int32
	body := map[string]string{}
	var keys []symfile.ModuleKey
	for i := range modules {
		name := fmt.Sprintf("lib%d.so", i)
		keys = append(keys, symfile.ModuleKey{DebugFile: name, DebugID: "ID", CodeFile: name})
		if i%3 != 0 { // every third module is missing
			body["/"+name+"/ID/"+name+".sym"] = appSym(name, "ID")
		}
	}
	serve := files(body)
	srv := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond) // long enough for requests to overlap
		serve(w, r)
	})
	for _, jobs := range []int{1, 3, 8} {
		t.Run(fmt.Sprint(jobs), func(t *testing.T) {
			peak.Store(0)
			s, err := NewSupplier([]string{srv.URL}, t.TempDir(), WithDownloadJobs(jobs))
			if err != nil {
				t.Fatal(err)
			}
			s.Prefetch(append(keys, keys...)) // duplicates are looked up once
			if p := peak.Load(); p > int32(jobs) || (jobs > 1 && p < 2) {
				t.Errorf("peak of %d requests at once with %d jobs", p, jobs)
			}
			serial, err := NewSupplier([]string{srv.URL}, t.TempDir(), WithDownloadJobs(1))
			if err != nil {
				t.Fatal(err)
			}
			before := srv.total()
			for _, k := range keys {
				got, gerr := s.Symbols(k)
				want, werr := serial.Symbols(k)
				if (gerr == nil) != (werr == nil) || (got == nil) != (want == nil) {
					t.Fatalf("%s: prefetched %v, serial %v", k.DebugFile, gerr, werr)
				}
				if got != nil && lookupName(t, got) != lookupName(t, want) {
					t.Errorf("%s: prefetched and serial files differ", k.DebugFile)
				}
			}
			// The prefetched answers are kept: only the serial
			// supplier made requests.
			if n := srv.total() - before; n != modules {
				t.Errorf("%d requests after the prefetch, want %d (the serial supplier's)", n, modules)
			}
		})
	}
}

// Concurrent Symbols calls (the walks of several threads) share the bound
// too.
func TestSupplierJobsBoundSymbols(t *testing.T) {
	var inFlight, peak atomic.Int32
	srv := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		http.NotFound(w, r)
	})
	s, err := NewSupplier([]string{srv.URL}, t.TempDir(), WithDownloadJobs(2))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() { s.Symbols(symfile.ModuleKey{DebugFile: fmt.Sprintf("m%d.so", i), DebugID: "ID"}) })
	}
	wg.Wait()
	if p := peak.Load(); p > 2 || p < 1 {
		t.Errorf("peak of %d requests at once with 2 jobs", p)
	}
}

// symfile.ChainSupplier.Prefetch does not download what a local directory has.
func TestChainSupplierPrefetchSkipsLocal(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "local.so", "ID", "local.so.sym"), []byte(appSym("local.so", "ID")))
	srv := newSymbolServer(t, files(map[string]string{
		"/local.so/ID/local.so.sym":   appSym("local.so", "ID"),
		"/remote.so/ID/remote.so.sym": appSym("remote.so", "ID"),
	}))
	hs, err := NewSupplier([]string{srv.URL}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := symfile.ChainSupplier{symfile.NewDirSupplier(root), hs}
	c.Prefetch([]symfile.ModuleKey{{DebugFile: "local.so", DebugID: "ID"}, {DebugFile: "remote.so", DebugID: "ID"}})
	if srv.count("/local.so/ID/local.so.sym") != 0 || srv.count("/remote.so/ID/remote.so.sym") != 1 {
		t.Errorf("requests %v: want only the remote module", srv.requests)
	}
}

// Progress reports start with the size, grow, and end once with Done.
func TestSupplierProgress(t *testing.T) {
	var b strings.Builder
	b.WriteString(appSym("libbig.so", "ID"))
	for addr := 0x2000; b.Len() < 1<<20; addr += 0x10 {
		fmt.Fprintf(&b, "PUBLIC %x 0 filler_%x\n", addr, addr)
	}
	big := b.String()
	srv := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(big)))
		for i := 0; i < len(big); i += 256 << 10 {
			w.Write([]byte(big[i:min(i+256<<10, len(big))]))
			w.(http.Flusher).Flush()
			time.Sleep(60 * time.Millisecond) // reports between chunks
		}
	})
	var mu sync.Mutex
	var events []DownloadProgress
	s, err := NewSupplier([]string{srv.URL}, t.TempDir(), WithProgress(func(p DownloadProgress) {
		mu.Lock()
		events = append(events, p)
		mu.Unlock()
	}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Symbols(symfile.ModuleKey{DebugFile: "libbig.so", DebugID: "ID"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) < 3 {
		t.Fatalf("%d progress reports, want a start, some progress and an end", len(events))
	}
	first, last := events[0], events[len(events)-1]
	if first.Received != 0 || first.Size != int64(len(big)) || first.File != "libbig.so.sym" || first.Done {
		t.Errorf("first report %+v", first)
	}
	if !last.Done || last.Received != int64(len(big)) {
		t.Errorf("last report %+v, want Done with all %d bytes", last, len(big))
	}
	for i := 1; i < len(events); i++ {
		if events[i].Received < events[i-1].Received || (events[i-1].Done) {
			t.Errorf("report %d %+v after %+v", i, events[i], events[i-1])
		}
	}
}
