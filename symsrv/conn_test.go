package symsrv

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// overlongServer is an HTTP/1.1 server on loopback that answers each
// request with the symbol file its path names and then more bytes than
// its Content-Length says, keeping the connection open for more requests.
func overlongServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					parts := strings.Split(req.URL.Path, "/") // "", name, id, file
					body := appSym(parts[1], parts[2])
					fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%sPAST THE LENGTH\r\n", len(body), body)
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// syncBuffer is a bytes.Buffer safe for the log package's writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestSupplierNoUnsolicitedResponse: a server sending more than its
// Content-Length makes Go's HTTP client log "Unsolicited response
// received on idle HTTP channel" on stderr when it finds the extra bytes
// on an idle connection (issue 26); the supplier's HTTP/1 connections are
// never idle, so nothing is logged, and every file is still used.
func TestSupplierNoUnsolicitedResponse(t *testing.T) {
	url := overlongServer(t)
	var logged syncBuffer
	log.SetOutput(&logged) // net/http logs through the standard logger
	defer log.SetOutput(os.Stderr)
	s, err := NewSupplier([]string{url}, t.TempDir(), WithDownloadJobs(1), WithTransport(nil)) // in this process, where log is captured
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		name := fmt.Sprintf("lib%d.so", i)
		f, err := s.Symbols(symfile.ModuleKey{DebugFile: name, DebugID: "ID"})
		if err != nil || lookupName(t, f) != name+"_fn" {
			t.Fatalf("%s: %v", name, err)
		}
	}
	time.Sleep(200 * time.Millisecond) // the client's read loop peeks at idle connections
	if out := logged.String(); out != "" {
		t.Errorf("the HTTP client logged:\n%s", out)
	}
}
