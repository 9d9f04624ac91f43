package input

import "bytes"

// maxMicrodump is the most text read to look for a microdump: the largest
// input microdump.Parse accepts, microdump.MaxSize (TestMicrodumpBounds
// keeps the two equal). The parser is not imported here: telling what a
// file holds comes before, and below, the readers of each kind.
const maxMicrodump = 64 << 20

// The tag and marker of a microdump's first line, as Breakpad's
// microdump_writer prints it into logcat ("W/google-breakpad( 3745):
// -----BEGIN BREAKPAD MICRODUMP-----"): the parser looks for the same.
const (
	microdumpTag   = "google-breakpad"
	microdumpBegin = "-----BEGIN BREAKPAD MICRODUMP-----"
)

// holdsMicrodump reports whether data looks like a microdump log: a line
// holding both the google-breakpad tag and the BEGIN marker.
func holdsMicrodump(data []byte) bool {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if bytes.Contains(line, []byte(microdumpBegin)) && bytes.Contains(line, []byte(microdumpTag)) {
			return true
		}
	}
	return false
}
