package report

import (
	"io"

	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
)

// WriteBrief prints minidump_stackwalk's -b output: the requesting thread's
// frame lines only.
func WriteBrief(w io.Writer, st *processor.ProcessState) error {
	return writeBrief(w, newTextView(st))
}

func writeBrief(w io.Writer, v *textView) error {
	pr := &printer{w: w}
	req := v.requesting
	if req < 0 {
		pr.puts(" <no crashing or requesting dump thread identified>\n")
		return pr.err
	}
	pr.printf("Thread %d (%s)\n", req, crashedWord(v.st))
	for i, f := range v.threads[req].Frames {
		writeFrameHeader(pr, v, f, i)
		pr.puts("\n")
	}
	return pr.err
}
