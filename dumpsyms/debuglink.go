package dumpsyms

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/regfile"
)

// ErrNoDebugLink is returned by FindDebugLink for a file without a
// .gnu_debuglink section.
var ErrNoDebugLink = errors.New("no .gnu_debuglink section")

// FindDebugLink finds the separate debug file f (read from path) names in
// its .gnu_debuglink section, as Google's dump_syms with debug directories:
// the name under each of dirs in turn, the first file whose CRC-32 equals
// the link's (and that is not path itself) winning. The name must be a
// plain file name.
func FindDebugLink(f *elf.File, path string, dirs []string) (string, error) {
	s := f.Section(".gnu_debuglink")
	if s == nil || s.Type == elf.SHT_NOBITS {
		return "", fmt.Errorf("%s: %w", path, ErrNoDebugLink)
	}
	if s.Size > 4096 { // a file name, padding and a CRC; s.Size may be a compressed section's claim
		return "", fmt.Errorf("%s: .gnu_debuglink of %d bytes is over the 4096 byte limit", path, s.Size)
	}
	data, err := s.Data()
	if err != nil {
		return "", fmt.Errorf("%s: .gnu_debuglink: %w", path, err)
	}
	nul := bytes.IndexByte(data, 0)
	if nul <= 0 || len(data) < 4 || (nul+1+3)&^3+4 != len(data) {
		return "", fmt.Errorf("%s: malformed .gnu_debuglink section of %d bytes", path, len(data))
	}
	name := string(data[:nul])
	if name != filepath.Base(name) || name == "." || name == ".." {
		return "", fmt.Errorf("%s: .gnu_debuglink names %q, not a plain file name", path, name)
	}
	want := f.ByteOrder.Uint32(data[len(data)-4:])
	self, _ := os.Stat(path)
	var tried []string
	for _, dir := range dirs {
		cand := filepath.Join(dir, name)
		if st, err := os.Stat(cand); err != nil || !st.Mode().IsRegular() || self != nil && os.SameFile(self, st) {
			tried = append(tried, cand)
			continue
		}
		sum, err := fileCRC(cand)
		if err == nil && sum == want {
			return cand, nil
		}
		tried = append(tried, fmt.Sprintf("%s (CRC %08x, want %08x)", cand, sum, want))
	}
	return "", fmt.Errorf("%s: no debug file %q with the .gnu_debuglink CRC in %q; tried %q", path, name, dirs, tried)
}

func fileCRC(path string) (uint32, error) {
	fh, _, err := regfile.Open(path)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, fh); err != nil {
		return 0, err
	}
	return h.Sum32(), nil
}
