package fetch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DefaultMissTTL is how long a server's "not found" (HTTP 404 or 410) is
// remembered in the cache directory, so that later runs do not ask again.
const DefaultMissTTL = 24 * time.Hour

// MissDirName holds the negative cache: one small file per server and
// symbol path, named by a hash, so that no name from a dump or a server
// ever becomes a path.
const MissDirName = ".misses"

const (
	missMagic = "minidump-stackwalk symbol miss 1\n"
	// maxMissFile bounds what is read of a miss file (a URL is at most a
	// few KiB); a longer file is not ours.
	maxMissFile = 16 << 10
	// missClockSkew is how far in the future a miss may be dated (clocks of
	// machines sharing a cache differ); a later date is a corrupt file,
	// which must not suppress requests for ever.
	missClockSkew = 5 * time.Minute
)

// MissPath is the file that records a miss of target (a full URL).
func (s *Store) MissPath(target string) string {
	sum := sha256.Sum256([]byte(target))
	h := hex.EncodeToString(sum[:])
	return filepath.Join(s.dir, MissDirName, h[:2], h)
}

// Miss reports whether a server's miss of target is remembered and
// still fresh, and when it was recorded. A file that is not exactly what
// recordMiss writes (another URL, a date in the future, trailing bytes, not
// a regular file) is ignored and removed; so is an expired one.
func (s *Store) Miss(target string) (time.Time, bool) {
	if s.missTTL <= 0 {
		return time.Time{}, false
	}
	p := s.MissPath(target)
	at, err := readMiss(p, target)
	if err != nil {
		if !os.IsNotExist(err) {
			removeRegular(p)
		}
		return time.Time{}, false
	}
	now := s.now()
	if at.After(now.Add(missClockSkew)) || now.Sub(at) >= s.missTTL {
		removeRegular(p)
		return time.Time{}, false
	}
	return at, true
}

// readMiss parses the miss file at p, which must name target.
func readMiss(p, target string) (time.Time, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return time.Time{}, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxMissFile {
		return time.Time{}, fmt.Errorf("%s: not a miss file", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return time.Time{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMissFile+1))
	if err != nil {
		return time.Time{}, err
	}
	rest, ok := bytes.CutPrefix(data, []byte(missMagic))
	var named, when []byte
	if ok {
		named, rest, ok = cutField(rest, "url ")
	}
	if ok {
		when, rest, ok = cutField(rest, "time ")
	}
	if !ok || len(rest) != 0 || string(named) != missName(target) {
		return time.Time{}, fmt.Errorf("%s: malformed miss file", p)
	}
	sec, err := strconv.ParseInt(string(when), 10, 64)
	if err != nil || sec <= 0 {
		return time.Time{}, fmt.Errorf("%s: malformed miss time", p)
	}
	return time.Unix(sec, 0), nil
}

// cutField cuts the line "<key><value>\n" off the start of b.
func cutField(b []byte, key string) (value, rest []byte, ok bool) {
	b, ok = bytes.CutPrefix(b, []byte(key))
	if !ok {
		return nil, nil, false
	}
	value, rest, ok = bytes.Cut(b, []byte("\n"))
	return value, rest, ok && len(value) > 0
}

// RecordMiss remembers that a server does not have target. The file is
// written in the partial directory and renamed into place, so a reader
// sees a whole record or none. Failing to record is not an error: the
// next run asks again.
func (s *Store) RecordMiss(target string) {
	if s.missTTL <= 0 {
		return
	}
	p := s.MissPath(target)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	tmp, err := s.createPartial()
	if err != nil {
		return
	}
	_, err = fmt.Fprintf(tmp, "%surl %s\ntime %d\n", missMagic, missName(target), s.now().Unix())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return
	}
	pruneMisses(filepath.Dir(p), s.missTTL, s.now())
}

// maxMissPrune bounds the entries one pruning reads, so that recording a
// miss costs little however large a hostile or old cache grew.
const maxMissPrune = 128

// pruneMisses removes the expired miss files of one bucket directory of
// the negative cache, judged by their modification time (when they were
// written), so that the cache does not grow with every miss ever
// recorded. Each recorded miss prunes its own bucket; the 256 buckets
// share the work.
func pruneMisses(dir string, ttl time.Duration, now time.Time) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	ents, _ := d.ReadDir(maxMissPrune)
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) >= ttl {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// missName is target as a miss file names it: without a password or a
// query, which may hold credentials that have no place on disk.
func missName(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return "?"
	}
	u.RawQuery, u.ForceQuery = "", false
	return strings.ReplaceAll(u.Redacted(), "\n", "%0A")
}

// removeRegular removes p when it is a regular file (never a directory a
// hostile cache put there).
func removeRegular(p string) {
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
		os.Remove(p)
	}
}
