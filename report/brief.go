package report

import (
	"io"

	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
)

// WriteBrief prints minidump_stackwalk's -b output: the requesting thread's
// frame lines only.
func WriteBrief(w io.Writer, st *processor.ProcessState) error {
	return writeBrief(w, newTextProcess(st))
}

func writeBrief(w io.Writer, p *textProcess) error {
	pr := &printer{w: w}
	req := p.RequestingThread
	if req < 0 || req >= len(p.Threads) {
		pr.puts(" <no crashing or requesting dump thread identified>\n")
		return pr.err
	}
	pr.printf("Thread %d (%s)\n", req, crashedWord(p))
	t := &p.Threads[req]
	for i := range t.Frames {
		writeFrameHeader(pr, &t.Frames[i], i)
		pr.puts("\n")
	}
	return pr.err
}
