package minidump

import (
	"bytes"
	"strconv"
)

// streamMozLinuxLimits is Mozilla's copy of /proc/self/limits.
const streamMozLinuxLimits StreamType = 0x4d7a0003

// Limit is one bound of /proc/self/limits: a number, or unlimited.
type Limit struct {
	Value     uint64
	Unlimited bool
}

// ProcLimit is one resource line of /proc/self/limits.
type ProcLimit struct {
	Name       string // "Max open files"
	Soft, Hard Limit
	Unit       string // "files", "bytes"; "n/a" when the line has none
}

// ProcLimits parses Mozilla's Linux limits stream (0x4d7a0003), the text of
// /proc/self/limits: a header line, then columns separated by runs of two
// or more spaces (names contain single spaces). Lines with fewer than three
// columns are skipped; a bound that is neither "unlimited" nor a number
// reads as 0, as rust-minidump reads it.
func (f *File) ProcLimits() ([]ProcLimit, error) {
	b, _, err := f.stream(streamMozLinuxLimits)
	if err != nil {
		return nil, err
	}
	var out []ProcLimit
	header := true
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if header {
			header = false
			continue
		}
		var cols []string
		for _, c := range bytes.Split(line, []byte("  ")) {
			if len(c) > 0 {
				cols = append(cols, string(bytes.TrimSpace(c)))
			}
		}
		if len(cols) < 3 {
			continue
		}
		l := ProcLimit{Name: cols[0], Soft: parseLimit(cols[1]), Hard: parseLimit(cols[2]), Unit: "n/a"}
		if len(cols) > 3 {
			l.Unit = cols[3]
		}
		out = append(out, l)
	}
	return out, nil
}

func parseLimit(s string) Limit {
	if s == "unlimited" {
		return Limit{Unlimited: true}
	}
	v, _ := strconv.ParseUint(s, 10, 64)
	return Limit{Value: v}
}
