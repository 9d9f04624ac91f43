package fetch

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serve is a server on loopback serving files by path.
func serve(t *testing.T, files map[string]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRetryPolicyDelay(t *testing.T) {
	p := RetryPolicy{Retries: 5, Base: 100 * time.Millisecond, MaxDelay: 350 * time.Millisecond, MaxWait: time.Minute}
	for n, want := range []time.Duration{100, 200, 350, 350} {
		want *= time.Millisecond
		for range 20 {
			d, ok := p.delay(n, 0)
			if !ok || d < want/2 || d > want {
				t.Fatalf("delay(%d) = %v, %v; want within [%v, %v]", n, d, ok, want/2, want)
			}
		}
	}
	if d, ok := p.delay(0, 300*time.Millisecond); !ok || d != 300*time.Millisecond {
		t.Errorf("Retry-After 300ms: %v, %v", d, ok)
	}
	if _, ok := p.delay(0, time.Second); ok {
		t.Error("a Retry-After beyond MaxDelay was accepted")
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for h, want := range map[string]time.Duration{
		"": 0, "7": 7 * time.Second, "-3": 0, "x": 0, "99999999999999": 0,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Hour).Format(http.TimeFormat):       0,
	} {
		if got := retryAfter(h, now); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", h, got, want)
		}
	}
}

func rewriteMiss(t *testing.T, p, url string, unix int64) {
	t.Helper()
	if err := os.WriteFile(p, fmt.Appendf(nil, "%surl %s\ntime %d\n", missMagic, missName(url), unix), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A miss file that is not exactly what the supplier writes never stops a
// request: dated in the future (which would suppress for ever), another
// URL, garbage, oversized, a directory, a symlink.
// A miss file that is not exactly what RecordMiss writes never stops a
// request: dated in the future (which would suppress for ever), another
// URL, garbage, oversized, a directory, a symlink.
func TestHostileMissFiles(t *testing.T) {
	const target = "http://127.0.0.1:1/libh.so/ID/libh.so.sym"
	future := time.Now().Add(100 * 365 * 24 * time.Hour).Unix()
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, p, url string)
	}{
		{"future", func(t *testing.T, p, url string) { rewriteMiss(t, p, url, future) }},
		{"max-int", func(t *testing.T, p, url string) { rewriteMiss(t, p, url, 1<<63-1) }},
		{"zero", func(t *testing.T, p, url string) { rewriteMiss(t, p, url, 0) }},
		{"other-url", func(t *testing.T, p, url string) { rewriteMiss(t, p, url+"x", time.Now().Unix()) }},
		{"trailing", func(t *testing.T, p, url string) {
			os.WriteFile(p, fmt.Appendf(nil, "%surl %s\ntime %d\nttl forever\n", missMagic, missName(url), time.Now().Unix()), 0o644)
		}},
		{"garbage", func(t *testing.T, p, url string) { os.WriteFile(p, []byte("\x00\xff garbage"), 0o644) }},
		{"empty", func(t *testing.T, p, url string) { os.WriteFile(p, nil, 0o644) }},
		{"huge", func(t *testing.T, p, url string) {
			os.WriteFile(p, []byte(missMagic+"url "+missName(url)+"\ntime 1\n"+strings.Repeat("x", maxMissFile)), 0o644)
		}},
		{"directory", func(t *testing.T, p, url string) { os.Mkdir(p, 0o755) }},
		{"symlink", func(t *testing.T, p, url string) {
			good := filepath.Join(t.TempDir(), "miss")
			rewriteMiss(t, good, url, time.Now().Unix())
			os.Symlink(good, p)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(t.TempDir(), time.Hour)
			p := s.MissPath(target)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			tc.write(t, p, target)
			if at, ok := s.Miss(target); ok {
				t.Errorf("the hostile miss file is taken for a miss of %v", at)
			}
		})
	}
}

// The miss file's name comes from a hash: module names that are odd but
// safe never make a path of their own under .misses.
func TestMissPathIsAHash(t *testing.T) {
	s := NewStore("/cache", time.Hour)
	p := s.MissPath("http://127.0.0.1:1/../../etc/x.sym/ID/x.sym")
	rel, err := filepath.Rel(filepath.Join("/cache", MissDirName), p)
	if err != nil || strings.Contains(rel, "..") || len(filepath.Base(p)) != 64 {
		t.Errorf("miss path %q", p)
	}
}

// Recording a miss prunes the expired miss files of its bucket, and only
// those: the negative cache does not grow with every miss ever recorded.
func TestRecordMissPrunesExpired(t *testing.T) {
	s := NewStore(t.TempDir(), time.Hour)
	target := "http://127.0.0.1:1/libp.so/ID/libp.so.sym"
	bucket := filepath.Dir(s.MissPath(target))
	if err := os.MkdirAll(filepath.Join(bucket, "subdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	old, fresh := filepath.Join(bucket, "old"), filepath.Join(bucket, "fresh")
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	s.RecordMiss(target)
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("expired miss file kept: %v", err)
	}
	for _, p := range []string{fresh, filepath.Join(bucket, "subdir"), s.MissPath(target)} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v; want it kept", filepath.Base(p), err)
		}
	}
}

// TestCleansPartialFiles: a download's partial file names its
// process and host. A Store removes the leftovers of this host's
// processes that no longer run, once idle, and anyone's once long
// untouched; never a fresh file of a live process, nor one of another host
// (a cache shared by machines or PID namespaces, issue 26).
func TestCleansPartialFiles(t *testing.T) {
	cache := t.TempDir()
	dir := filepath.Join(cache, PartialDirName)
	os.MkdirAll(dir, 0o755)
	me, host := strconv.Itoa(os.Getpid()), hostName()
	const deadPid = "2147483646" // above any pid_max
	idle := time.Now().Add(-2 * stalePartialIdle)
	ancient := time.Now().Add(-2 * stalePartialAge)
	partials := []struct {
		name    string
		written time.Time
		kept    bool
	}{
		{deadPid + "@" + host + "-1.sym", idle, false},      // this host, owner gone
		{deadPid + "@" + host + "-2.sym", time.Now(), true}, // owner gone, but written just now
		{me + "@" + host + "-3.sym", idle, true},            // a live process's (a stalled download)
		{deadPid + "@other_host-4.sym", idle, true},         // another host's: its pid means nothing here
		{deadPid + "@other_host-5.sym", ancient, false},     // anyone's, untouched for long
		{deadPid + "-6.sym", idle, true},                    // the older naming, no host: age only
		{deadPid + "-7.sym", ancient, false},
		{"x@" + host + "-8.sym", ancient, true}, // not a name this package makes
	}
	for _, f := range partials {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte("MODULE partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, f.written, f.written)
	}
	// A leftover of the earlier layout, beside the cached file.
	legacy := filepath.Join(cache, "lib.so", "ID", ".download-123")
	os.MkdirAll(filepath.Dir(legacy), 0o755)
	os.WriteFile(legacy, []byte("MODULE partial"), 0o644)
	os.Chtimes(legacy, ancient, ancient)
	srv := serve(t, map[string]string{"/lib.so/ID/lib.so.sym": "MODULE Linux x86_64 ID lib.so\n"})
	store := NewStore(cache, time.Hour)
	c := New(DefaultConfig())
	if err := c.Get(Request{Server: srv.URL, URL: srv.URL + "/lib.so/ID/lib.so.sym", Store: store,
		Local: filepath.Join(cache, "lib.so", "ID", "lib.so.sym")}); err != nil {
		t.Fatal(err)
	}
	for _, f := range partials {
		if _, err := os.Stat(filepath.Join(dir, f.name)); (err == nil) != f.kept {
			t.Errorf("%s: present %v, want %v", f.name, err == nil, f.kept)
		}
	}
	if _, err := os.Stat(legacy); err == nil {
		t.Error("old .download- file left beside the cached file")
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 5 {
		t.Errorf("%d files in %s after the download, want the 5 kept (the download's own is renamed)", len(left), dir)
	}
}

// TestPartialNames: this process's partial files name it and its host,
// and partialOwner reads them back.
func TestPartialNames(t *testing.T) {
	s := NewStore(t.TempDir(), 0)
	f, err := s.createPartial()
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	pid, host, ok := partialOwner(filepath.Base(f.Name()))
	if !ok || pid != os.Getpid() || host != hostName() || host == "" {
		t.Errorf("%s: owner %d@%q (%v), want %d@%q", f.Name(), pid, host, ok, os.Getpid(), hostName())
	}
}
