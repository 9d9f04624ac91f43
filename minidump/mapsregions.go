package minidump

import (
	"bytes"
	"strconv"
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
	b, err := f.Maps()
	if err != nil {
		return nil, err
	}
	var out []MapsRegion
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
	return out, nil
}

func parseMapsLine(line []byte) (MapsRegion, bool) {
	fields := bytes.Fields(line)
	if len(fields) < 2 || len(fields[1]) < 3 {
		return MapsRegion{}, false
	}
	lo, hi, ok := bytes.Cut(fields[0], []byte("-"))
	if !ok {
		return MapsRegion{}, false
	}
	start, err1 := strconv.ParseUint(string(lo), 16, 64)
	end, err2 := strconv.ParseUint(string(hi), 16, 64)
	if err1 != nil || err2 != nil || end <= start {
		return MapsRegion{}, false
	}
	p := fields[1]
	return MapsRegion{Start: start, End: end, Read: p[0] == 'r', Write: p[1] == 'w', Exec: p[2] == 'x'}, true
}
