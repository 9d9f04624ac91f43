package debuginfod

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch"
)

// Kind is what is fetched for a build id.
type Kind string

const (
	Executable Kind = "executable" // the ELF file itself
	DebugInfo  Kind = "debuginfo"  // its separate debug file
)

// Defaults of a Client made without a download client of its own
// (Client.Downloads): fetch's, but for the time it may take in all, which
// the caller's context bounds.
const (
	DefaultTimeout     = fetch.DefaultTimeout
	DefaultMaxSize     = fetch.DefaultMaxSize
	DefaultNegativeTTL = 600 * time.Second
)

// ErrNotFound reports that no server has the file (or that this was
// learned less than NegativeTTL ago).
var ErrNotFound = errors.New("debuginfod: not found")

// FetchError reports a server's answer that was refused: a network error,
// a timeout, an HTTP status other than 200 and 404, a file over the size
// bound, not an ELF file, or with another build id (package fetch's
// error: its ServerDown says the server is not asked again in the run).
type FetchError = fetch.Error

// ErrTooLarge reports a file over the size bound.
var ErrTooLarge = fetch.ErrTooLarge

// ErrWrongBuildID reports a downloaded file that is not an ELF file with
// the build id asked for: it is neither used nor cached.
var ErrWrongBuildID = errors.New("not the ELF file of the build id asked for")

// Client fetches files from debuginfod servers into a cache directory,
// through package fetch's bounded download path.
type Client struct {
	URLs     []string
	CacheDir string
	// Downloads is the download client, whose bounds (request and total
	// timeouts, rate floor, size, retries, servers put down) the run's
	// symbol servers share; nil: one made at first use of Timeout and
	// MaxSize and fetch's other defaults, without a total bound.
	Downloads   *fetch.Client
	Timeout     time.Duration // without Downloads; 0: DefaultTimeout
	MaxSize     int64         // without Downloads; 0: DefaultMaxSize
	NegativeTTL time.Duration
	Now         func() time.Time // nil: time.Now (tests set a clock)

	setup sync.Once
	store *fetch.Store
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

// init makes the download client and the cache's Store once.
func (c *Client) init() {
	c.setup.Do(func() {
		if c.Downloads == nil {
			cfg := fetch.DefaultConfig()
			cfg.Total = 0
			if c.Timeout > 0 {
				cfg.Timeout = c.Timeout
			}
			if c.MaxSize > 0 {
				cfg.MaxSize = c.MaxSize
			}
			c.Downloads = fetch.New(cfg)
		}
		ttl := c.NegativeTTL
		if ttl <= 0 {
			ttl = DefaultNegativeTTL
		}
		c.store = fetch.NewStore(c.CacheDir, ttl)
		if c.Now != nil {
			c.store.WithClock(c.Now)
		}
	})
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

// elfMagic starts every ELF file.
var elfMagic = []byte("\x7fELF")

// Fetch returns the path of the cached file of kind for the build id
// (lowercase hex), downloading it first if needed: it enters the cache
// only once it is an ELF file with that build id. It returns ErrNotFound
// when every server answered 404 (each miss remembered for NegativeTTL),
// and the *FetchErrors of the servers whose answers were refused, or that
// were not asked (down, the time budget spent), otherwise. ctx cancels
// the downloads.
func (c *Client) Fetch(ctx context.Context, buildID string, kind Kind) (string, error) {
	if err := validBuildID(buildID); err != nil {
		return "", err
	}
	if kind != Executable && kind != DebugInfo {
		return "", fmt.Errorf("debuginfod: unknown kind %q", kind)
	}
	c.init()
	path := filepath.Join(c.CacheDir, buildID, string(kind))
	l := c.lock(path)
	l.Lock()
	defer l.Unlock()

	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		return path, nil
	}
	var failures []error
	for _, base := range c.URLs {
		url := base + "/buildid/" + buildID + "/" + string(kind)
		if _, ok := c.store.Miss(url); ok {
			continue
		}
		err := c.Downloads.Get(fetch.Request{Ctx: ctx, Server: base, URL: url, Store: c.store, Local: path,
			What: "an ELF file", Heads: [][]byte{elfMagic},
			Check: func(partial string) error { return checkBuildID(partial, buildID) }})
		switch {
		case err == nil:
			return path, nil
		case ctx.Err() != nil:
			return "", fmt.Errorf("debuginfod %s: %w", url, context.Cause(ctx))
		case !errors.Is(err, fetch.ErrNotFound):
			failures = append(failures, err)
		}
	}
	if len(failures) > 0 {
		return "", errors.Join(failures...)
	}
	return "", ErrNotFound
}

// checkBuildID checks that the file at path is an ELF file whose GNU
// build id is want.
func checkBuildID(path, want string) error {
	ef, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%w: not an ELF file: %w", ErrWrongBuildID, errors.New(strings.ReplaceAll(err.Error(), path+": ", "")))
	}
	defer ef.Close()
	got, err := BuildID(ef)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrWrongBuildID, err)
	}
	if hex.EncodeToString(got) != want {
		return fmt.Errorf("%w: build id %x, want %s", ErrWrongBuildID, got, want)
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
