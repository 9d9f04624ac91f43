package fetch

import (
	"bytes"
	"compress/gzip"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// gzipped compresses data as one gzip member.
func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gzipServer answers every request with body, Content-Encoding: gzip,
// counting the requests.
func gzipServer(t *testing.T, body []byte, n *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestGzipBody: a gzip-encoded body is decoded by Get (not by the HTTP
// client) and stored decoded; one that inflates more than MaxExpansion
// times is cut there, long before the size bound, nothing enters the
// cache, and the server is not asked again.
func TestGzipBody(t *testing.T) {
	text := []byte(strings.Repeat("FUNC 1000 10 0 some_function_name(int, char const*)\n", 1))
	for i := 0; len(text) < 1<<20; i++ { // a symbol file's text: compresses some 5 to 20 times
		text = append(text, []byte(strings.Repeat("x", i%37)+" line "+string(rune('a'+i%26))+"\n")...)
	}
	var asked atomic.Int32
	good := gzipServer(t, gzipped(t, text), &asked)
	cache := t.TempDir()
	store := NewStore(cache, time.Hour)
	c := New(DefaultConfig())
	local := filepath.Join(cache, "good")
	if err := c.Get(Request{Server: good.URL, URL: good.URL + "/good", Store: store, Local: local}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(local); !bytes.Equal(got, text) {
		t.Errorf("stored %d bytes, want the %d decoded", len(got), len(text))
	}

	// 64 members of 1 MiB of zeros each: about 1000 times.
	bomb := gzipServer(t, bytes.Repeat(gzipped(t, make([]byte, 1<<20)), 64), &asked)
	asked.Store(0)
	for i := range 3 {
		start := time.Now()
		err := c.Get(Request{Server: bomb.URL, URL: bomb.URL + "/bomb", Store: store, Local: filepath.Join(cache, "bomb")})
		var fe *Error
		if !errors.Is(err, ErrTooLarge) || !errors.As(err, &fe) || !fe.ServerDown {
			t.Errorf("request %d: %v; want ErrTooLarge, the server down", i, err)
		}
		if i == 0 && !strings.Contains(err.Error(), "inflating") {
			t.Errorf("%v: want the expansion bound named", err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("request %d took %v", i, d)
		}
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("bomb server asked %d times, want 1", n)
	}
	if _, err := os.Stat(filepath.Join(cache, "bomb")); err == nil {
		t.Error("the bomb entered the cache")
	}
	if ents, _ := os.ReadDir(filepath.Join(cache, PartialDirName)); len(ents) != 0 {
		t.Errorf("partial files left: %v", ents)
	}
}

// TestCheckRefuses: a body the caller's check refuses is not cached, is
// Get's error, and does not put the server down.
func TestCheckRefuses(t *testing.T) {
	srv := serve(t, map[string]string{"/a": "ELF?", "/b": "ELF!"})
	cache := t.TempDir()
	store := NewStore(cache, time.Hour)
	c := New(DefaultConfig())
	errWrong := errors.New("wrong build id")
	check := func(path string) error {
		if data, _ := os.ReadFile(path); string(data) != "ELF!" {
			return errWrong
		}
		return nil
	}
	err := c.Get(Request{Server: srv.URL, URL: srv.URL + "/a", Store: store, Local: filepath.Join(cache, "a"), Check: check})
	var fe *Error
	if !errors.Is(err, errWrong) || !errors.As(err, &fe) || fe.ServerDown || fe.Status != 200 {
		t.Errorf("%v: want the check's error, status 200, server kept", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "a")); err == nil {
		t.Error("refused file cached")
	}
	if err := c.Get(Request{Server: srv.URL, URL: srv.URL + "/b", Store: store, Local: filepath.Join(cache, "b"), Check: check}); err != nil {
		t.Errorf("accepted file: %v", err)
	}
}
