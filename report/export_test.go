package report

import (
	"io"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
)

// The whole JSON document as values, for the tests that compare the
// streamed writer with json.Encoder's encoding of the document
// (TestStreamedJSONMatchesEncoder) and read reports back. The command and
// the library print with WriteStateJSON.

// BuildJSON builds the JSON report of st whole.
func BuildJSON(st *processor.ProcessState, opts JSONOptions) *JSONReport {
	r, _ := buildJSON(st, opts, false)
	return r
}

// WriteJSON writes r as WriteStateJSON writes the report it was built from.
func WriteJSON(w io.Writer, r *JSONReport, pretty bool) error {
	return writeJSONDoc(w, r, builtLists(r), pretty)
}

// headerLines returns the report's header block, "Operating system:" through
// "Process uptime:", one string per line.
func headerLines(st *processor.ProcessState) []string {
	var b strings.Builder
	writeHeader(&printer{w: &b}, newTextView(st))
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}
