package hostile

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
)

// ServerMode is how a hostile symbol server answers.
type ServerMode string

// The modes of SymbolServer.
const (
	Trickle      ServerMode = "trickle"       // headers, then a byte every 20 ms, forever
	Stall        ServerMode = "stall"         // no answer at all until the client gives up
	NotSymbols   ServerMode = "not-symbols"   // 200 with an HTML page
	Corrupt      ServerMode = "corrupt"       // a MODULE line, then garbage lines
	WrongModule  ServerMode = "wrong-module"  // a well-formed file of another module
	Endless      ServerMode = "endless"       // a well-formed file that never ends, as fast as it can
	GzipBomb     ServerMode = "gzip-bomb"     // Content-Encoding: gzip, 16 GiB inflated from a few MB
	ShortBody    ServerMode = "short-body"    // Content-Length 1 GiB, 100 bytes, then the connection closes
	RedirectLoop ServerMode = "redirect-loop" // a redirect to itself
	ServerError  ServerMode = "server-error"  // 500 after a second
	Overlong     ServerMode = "overlong"      // a well-formed file, then bytes past its Content-Length
)

// ServerModes lists every mode.
var ServerModes = []ServerMode{Trickle, Stall, NotSymbols, Corrupt, WrongModule, Endless, GzipBomb, ShortBody,
	RedirectLoop, ServerError, Overlong}

// SymbolServer starts a symbol server on loopback that answers every
// request in the given mode. Close it after use; Close waits for the
// handlers, which end when their client goes away.
func SymbolServer(mode ServerMode) *httptest.Server {
	return httptest.NewServer(SymbolHandler(mode))
}

// SymbolHandler is the handler of SymbolServer: for a caller that counts
// the requests, or serves it its own way.
func SymbolHandler(mode ServerMode) http.Handler {
	var bomb []byte
	if mode == GzipBomb {
		bomb = gzipBomb(16 << 30)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		module := symbolModuleLine(r.URL.Path)
		ctx := r.Context()
		switch mode {
		case Trickle:
			w.WriteHeader(http.StatusOK)
			fl, _ := w.(http.Flusher)
			body := module + "FUNC 1000 10 0 f\n"
			for i := 0; ; i++ {
				c := body[i%len(body)]
				select {
				case <-ctx.Done():
					return
				case <-time.After(20 * time.Millisecond):
				}
				if _, err := w.Write([]byte{c}); err != nil {
					return
				}
				if fl != nil {
					fl.Flush()
				}
			}
		case Stall:
			<-ctx.Done()
		case NotSymbols:
			fmt.Fprint(w, "<html><body>Not a symbol file</body></html>\n")
		case Corrupt:
			fmt.Fprint(w, module+strings.Repeat("FUNC zz yy\n\x00\xff garbage\n", 10_000))
		case WrongModule:
			fmt.Fprint(w, "MODULE windows x86_64 22222222222222222222222222222222 other.pdb\nFUNC 1000 10 0 other\n")
		case Endless:
			block := []byte(strings.Repeat("1000 10 1 0\n", 64<<10/12))
			w.Write([]byte(module + "FUNC 1000 10 0 f\n"))
			for ctx.Err() == nil {
				if _, err := w.Write(block); err != nil {
					return
				}
			}
		case GzipBomb:
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gzipMember([]byte(module + "FUNC 1000 10 0 bomb\n")))
			w.Write(bomb)
		case ShortBody:
			w.Header().Set("Content-Length", fmt.Sprint(1<<30))
			w.Write([]byte(module + strings.Repeat("x", 100)))
		case RedirectLoop:
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
		case Overlong:
			overlong(w, module+"FUNC 1000 10 0 f\n")
		case ServerError:
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			http.Error(w, "boom", http.StatusInternalServerError)
		}
	})
}

// symbolModuleLine returns the MODULE line of the symbol file a request
// for DebugFile/DebugID/name.sym asks for.
// overlong answers with body and a Content-Length that leaves out the
// line written after it, on the raw connection (net/http refuses to write
// past a Content-Length), which it keeps open for more requests until the
// client closes it.
func overlong(w http.ResponseWriter, body string) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return
	}
	c, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer c.Close()
	fmt.Fprintf(rw, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%sPAST THE CONTENT-LENGTH\r\n", len(body), body)
	rw.Flush()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	io.Copy(io.Discard, c)
}

func symbolModuleLine(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) < 3 {
		return "MODULE windows x86_64 " + BombDebugID + " " + BombDebugFile + "\n"
	}
	file, id := parts[len(parts)-3], parts[len(parts)-2]
	return "MODULE windows x86_64 " + id + " " + file + "\n"
}

// gzipBomb returns gzip members that inflate to about size bytes of
// well-formed line records (to follow a MODULE and a FUNC line).
func gzipBomb(size int64) []byte {
	const chunk = 8 << 20
	lines := bytes.Repeat([]byte("1000 10 1 0\n"), chunk/12)
	body := gzipMember(lines)
	var out []byte
	for n := int64(0); n < size; n += int64(len(lines)) {
		out = append(out, body...)
	}
	return out
}

// gzipMember returns s compressed as one gzip member.
func gzipMember(s []byte) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(s)
	zw.Close()
	return b.Bytes()
}
