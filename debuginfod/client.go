package debuginfod

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/symsrv"
)

// Kind is what is fetched for a build id.
type Kind string

const (
	Executable Kind = "executable" // the ELF file itself
	DebugInfo  Kind = "debuginfo"  // its separate debug file
)

// Defaults of a Client.
const (
	DefaultTimeout     = 2 * time.Minute
	DefaultMaxSize     = 2 << 30
	DefaultNegativeTTL = 600 * time.Second
)

// ErrNotFound reports that no server has the file (or that this was
// learned less than NegativeTTL ago).
var ErrNotFound = errors.New("debuginfod: not found")

// FetchError reports a server's answer that was refused: a network error,
// a timeout, an HTTP status other than 200 and 404, a file over the size
// bound, not an ELF file, or with another build id.
type FetchError struct {
	URL    string
	Status int // HTTP status; 0 when none was read
	Err    error
}

func (e *FetchError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("debuginfod %s: HTTP status %d: %v", e.URL, e.Status, e.Err)
	}
	return fmt.Sprintf("debuginfod %s: %v", e.URL, e.Err)
}

func (e *FetchError) Unwrap() error { return e.Err }

// ErrTooLarge reports a file over MaxSize.
var ErrTooLarge = errors.New("file larger than the download limit")

// Client fetches files from debuginfod servers into a cache directory.
// The zero values of the bounds mean the defaults.
type Client struct {
	URLs        []string
	CacheDir    string
	HTTP        *http.Client // nil: a client with no timeout of its own, over symsrv.NewTransport
	Timeout     time.Duration
	MaxSize     int64
	NegativeTTL time.Duration
	Now         func() time.Time // nil: time.Now (tests set a clock)

	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

// ParseURLs splits a DEBUGINFOD_URLS value as elfutils does: URLs
// separated by white space; trailing slashes are dropped.
func ParseURLs(s string) []string {
	var urls []string
	for _, u := range strings.Fields(s) {
		if u = strings.TrimRight(u, "/"); u != "" {
			urls = append(urls, u)
		}
	}
	return urls
}

// validBuildID checks a build id given as hex: it names a cache directory,
// so nothing but lowercase hex digits is accepted.
func validBuildID(id string) error {
	if len(id) < 2 || len(id) > 128 || len(id)%2 != 0 {
		return fmt.Errorf("debuginfod: build id %q: want 2 to 128 hex digits", id)
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return fmt.Errorf("debuginfod: build id %q: want lowercase hex digits", id)
		}
	}
	return nil
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Client) lock(key string) *sync.Mutex {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.locks == nil {
		c.locks = map[string]*sync.Mutex{}
	}
	l := c.locks[key]
	if l == nil {
		l = &sync.Mutex{}
		c.locks[key] = l
	}
	return l
}

// Fetch returns the path of the cached file of kind for the build id
// (lowercase hex), downloading it first if needed. It returns ErrNotFound
// when every server answered 404 (remembered for NegativeTTL), and the
// last *FetchError when some server's answer was refused.
func (c *Client) Fetch(ctx context.Context, buildID string, kind Kind) (string, error) {
	if err := validBuildID(buildID); err != nil {
		return "", err
	}
	if kind != Executable && kind != DebugInfo {
		return "", fmt.Errorf("debuginfod: unknown kind %q", kind)
	}
	dir := filepath.Join(c.CacheDir, buildID)
	path := filepath.Join(dir, string(kind))
	miss := path + ".miss"
	l := c.lock(path)
	l.Lock()
	defer l.Unlock()

	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		return path, nil
	}
	if fi, err := os.Stat(miss); err == nil && c.now().Sub(fi.ModTime()) < c.negativeTTL() {
		return "", ErrNotFound
	}
	if len(c.URLs) == 0 {
		return "", ErrNotFound
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("debuginfod: cache: %w", err)
	}
	var last error
	for _, base := range c.URLs {
		url := base + "/buildid/" + buildID + "/" + string(kind)
		err := c.download(ctx, url, dir, path, buildID)
		if err == nil {
			os.Remove(miss)
			return path, nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if !errors.Is(err, ErrNotFound) {
			last = err
		}
	}
	if last != nil {
		return "", last
	}
	// Every server said 404: remember it.
	if f, err := os.Create(miss); err == nil {
		f.Close()
		t := c.now()
		os.Chtimes(miss, t, t)
	}
	return "", ErrNotFound
}

func (c *Client) negativeTTL() time.Duration {
	if c.NegativeTTL > 0 {
		return c.NegativeTTL
	}
	return DefaultNegativeTTL
}

func (c *Client) maxSize() int64 {
	if c.MaxSize > 0 {
		return c.MaxSize
	}
	return DefaultMaxSize
}

// download fetches url into a temporary file of dir, checks it, and renames
// it to path.
func (c *Client) download(ctx context.Context, url, dir, path, buildID string) error {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return &FetchError{URL: url, Err: err}
	}
	hc := c.HTTP
	if hc == nil {
		// symsrv's connections: a server writing past its Content-Length
		// cannot make the client log on stderr (issue 26).
		hc = &http.Client{Transport: symsrv.NewTransport(nil)}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return &FetchError{URL: url, Err: err}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return ErrNotFound
	case resp.StatusCode != http.StatusOK:
		return &FetchError{URL: url, Status: resp.StatusCode, Err: errors.New("unexpected status")}
	case resp.ContentLength > c.maxSize():
		return &FetchError{URL: url, Status: resp.StatusCode, Err: fmt.Errorf("%w: Content-Length %d", ErrTooLarge, resp.ContentLength)}
	}
	tmp, err := os.CreateTemp(dir, ".download-*")
	if err != nil {
		return fmt.Errorf("debuginfod: cache: %w", err)
	}
	keep := false
	defer func() {
		if !keep {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	n, err := io.Copy(tmp, io.LimitReader(resp.Body, c.maxSize()+1))
	if err != nil {
		return &FetchError{URL: url, Status: resp.StatusCode, Err: err}
	}
	if n > c.maxSize() {
		return &FetchError{URL: url, Status: resp.StatusCode, Err: fmt.Errorf("%w (%d bytes)", ErrTooLarge, c.maxSize())}
	}
	if err := checkBuildID(tmp, buildID); err != nil {
		return &FetchError{URL: url, Status: resp.StatusCode, Err: err}
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("debuginfod: cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("debuginfod: cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("debuginfod: cache: %w", err)
	}
	keep = true
	return nil
}

// checkBuildID checks that f is an ELF file whose GNU build id is want.
func checkBuildID(f *os.File, want string) error {
	ef, err := elf.NewFile(f)
	if err != nil {
		return fmt.Errorf("not an ELF file: %w", err)
	}
	got, err := BuildID(ef)
	if err != nil {
		return err
	}
	if hex.EncodeToString(got) != want {
		return fmt.Errorf("build id %x, want %s", got, want)
	}
	return nil
}

// BuildID returns the GNU build id of an ELF file, from its
// .note.gnu.build-id section or a PT_NOTE segment.
func BuildID(f *elf.File) ([]byte, error) {
	var notes [][]byte
	if s := f.Section(".note.gnu.build-id"); s != nil && s.Type == elf.SHT_NOTE && s.Size < 1<<16 {
		if data, err := s.Data(); err == nil {
			notes = append(notes, data)
		}
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_NOTE && p.Filesz < 1<<16 {
			data := make([]byte, p.Filesz)
			if _, err := p.ReadAt(data, 0); err == nil {
				notes = append(notes, data)
			}
		}
	}
	for _, data := range notes {
		if id := gnuBuildIDNote(data, f.ByteOrder); id != nil {
			return id, nil
		}
	}
	return nil, errors.New("no GNU build id")
}

func gnuBuildIDNote(data []byte, order interface{ Uint32([]byte) uint32 }) []byte {
	for len(data) >= 12 {
		namesz, descsz, typ := uint64(order.Uint32(data)), uint64(order.Uint32(data[4:])), order.Uint32(data[8:])
		nameEnd := 12 + (namesz+3)&^3
		descEnd := nameEnd + (descsz+3)&^3
		if descEnd > uint64(len(data)) {
			return nil
		}
		if typ == 3 && bytes.Equal(data[12:12+namesz], []byte("GNU\x00")) && descsz > 0 {
			return data[nameEnd : nameEnd+descsz]
		}
		data = data[descEnd:]
	}
	return nil
}
