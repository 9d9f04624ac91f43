package fetch

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Store is a cache directory's bookkeeping of downloads: the partial
// files bodies are written to until they are checked and renamed into
// place, and the negative cache of misses (miss.go). Safe for concurrent
// use.
type Store struct {
	dir        string
	partialDir string        // downloads in progress: dir/.partial
	host       string        // this host, as partial files name it
	missTTL    time.Duration // 0: no negative cache
	now        func() time.Time
	cleanOnce  sync.Once // removes partial files of earlier processes
}

// NewStore returns the Store of the cache directory dir (created when
// the first file is stored), remembering misses for missTTL (0: not at
// all).
func NewStore(dir string, missTTL time.Duration) *Store {
	return &Store{dir: dir, partialDir: filepath.Join(dir, PartialDirName), host: hostName(), missTTL: missTTL, now: time.Now}
}

// WithClock makes the Store date and judge misses by now (tests).
func (s *Store) WithClock(now func() time.Time) *Store {
	s.now = now
	return s
}

// Dir is the cache directory.
func (s *Store) Dir() string { return s.dir }

// PartialDirName is the directory, under the cache directory, where
// downloads are written until they are checked and renamed into place.
const PartialDirName = ".partial"

// A partial file left by a process that no longer runs on this host is
// removed once it has not been written for stalePartialIdle (a live
// download writes at least every rate window, or is abandoned); any
// partial file, whoever wrote it, once it has not been written for
// stalePartialAge. A cache shared by several machines or PID namespaces
// (docs/scaling.md) thus never loses a download in progress to another
// process that cannot see its writer.
const (
	stalePartialIdle = 10 * time.Minute
	stalePartialAge  = 24 * time.Hour
)

// createPartial creates a file for a download in the partial directory,
// named <pid>@<host>-<random>.part after this process and host, so that a
// later process can tell a leftover of a crash from a download in
// progress.
func (s *Store) createPartial() (*os.File, error) {
	if err := os.MkdirAll(s.partialDir, 0o755); err != nil {
		return nil, err
	}
	s.cleanOnce.Do(s.cleanPartial)
	return os.CreateTemp(s.partialDir, strconv.Itoa(os.Getpid())+"@"+s.host+"-*.part")
}

// partialOwner returns the pid and host a partial file's name gives; host
// is "" for names without one (written by versions before hosts were
// named), ok false for names this package did not make.
func partialOwner(name string) (pid int, host string, ok bool) {
	owner, _, ok := strings.Cut(name, "-")
	if at := strings.IndexByte(name, '@'); at >= 0 {
		i := strings.LastIndexByte(name, '-')
		if i < at {
			return 0, "", false
		}
		owner, host = name[:at], name[at+1:i]
	}
	pid, err := strconv.Atoi(owner)
	return pid, host, ok && err == nil && pid > 0
}

// cleanPartial removes the partial files that earlier processes left when
// they were killed: those of this host's processes no longer running, and
// any file no longer written (stalePartialIdle, stalePartialAge).
func (s *Store) cleanPartial() {
	ents, err := os.ReadDir(s.partialDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, host, ok := partialOwner(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		idle := time.Since(info.ModTime())
		ownerGone := host == s.host && idle > stalePartialIdle && !processAlive(pid)
		if ownerGone || idle > stalePartialAge {
			os.Remove(filepath.Join(s.partialDir, e.Name()))
		}
	}
}

// hostName is this host's name as a partial file names it: the
// characters of a file name only, at most 64 of them.
func hostName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		h = "unknown"
	}
	h = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' {
			return r
		}
		return '_'
	}, h)
	return h[:min(len(h), 64)]
}
