package minidump

import (
	"bytes"
	"strconv"
	"unicode"
)

// MapsRegion is one line of the Linux maps stream (/proc/PID/maps): the
// address range [Start, End) and its permissions.
type MapsRegion struct {
	Start, End        uint64
	Read, Write, Exec bool
}

// MapsRegions parses the Linux maps stream. Lines that are not
// "start-end perms ..." are skipped.
func (f *File) MapsRegions() ([]MapsRegion, error) {
	b, _, err := f.stream(StreamLinuxMaps) // read in place: nothing keeps it
	if err != nil {
		return nil, err
	}
	out := make([]MapsRegion, 0, bytes.Count(b, []byte("\n"))+1)
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if r, ok := parseMapsLine(line); ok {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

func parseMapsLine(line []byte) (MapsRegion, bool) {
	rng, rest := nextField(line)
	p, _ := nextField(rest)
	if rng == nil || len(p) < 3 {
		return MapsRegion{}, false
	}
	lo, hi, ok := bytes.Cut(rng, []byte("-"))
	if !ok {
		return MapsRegion{}, false
	}
	start, err1 := strconv.ParseUint(string(lo), 16, 64)
	end, err2 := strconv.ParseUint(string(hi), 16, 64)
	if err1 != nil || err2 != nil || end <= start {
		return MapsRegion{}, false
	}
	return MapsRegion{Start: start, End: end, Read: p[0] == 'r', Write: p[1] == 'w', Exec: p[2] == 'x'}, true
}

// nextField returns the first field of b, split as bytes.Fields splits
// (at Unicode white space), and the rest of b after it; a nil field when
// there is none. Unlike bytes.Fields it allocates nothing.
func nextField(b []byte) (field, rest []byte) {
	i := bytes.IndexFunc(b, isNotSpace)
	if i < 0 {
		return nil, nil
	}
	b = b[i:]
	j := bytes.IndexFunc(b, unicode.IsSpace)
	if j < 0 {
		return b, nil
	}
	return b[:j], b[j:]
}

func isNotSpace(r rune) bool { return !unicode.IsSpace(r) }
