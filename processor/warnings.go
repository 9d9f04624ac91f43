package processor

import (
	"errors"
	"fmt"
)

// maxRepeatedNotes is how many problems of one kind are noted one by one;
// the rest are counted in one more note, so that a hostile dump (thousands
// of threads with unreadable stacks) cannot flood the warnings.
const maxRepeatedNotes = 5

// repeatedNotes collects problems of one kind for ProcessState.Errors.
type repeatedNotes struct {
	what  string // plural noun for the summary, e.g. "unreadable thread stacks"
	errs  []error
	more  int
	first error
}

func (r *repeatedNotes) add(err error) {
	if len(r.errs) < maxRepeatedNotes {
		r.errs = append(r.errs, err)
		return
	}
	if r.more == 0 {
		r.first = err
	}
	r.more++
}

// flush notes the collected problems in st.
func (r *repeatedNotes) flush(st *ProcessState, what Stream) {
	for _, e := range r.errs {
		st.note(what, e)
	}
	if r.more > 0 {
		st.note(what, fmt.Errorf("%d more %s, the first: %w", r.more, r.what, r.first))
	}
}

// capJoined bounds an error that joins one error per entry of a stream
// (errors.Join of a bad name per module, per thread name, per Crashpad
// annotation): the first maxRepeatedNotes, then one counting the rest.
// A dump with 20,000 modules whose names lie past its end would otherwise
// print 20,000 lines.
func capJoined(stream Stream, err error) error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err
	}
	errs := j.Unwrap()
	if len(errs) <= maxRepeatedNotes+1 {
		return err
	}
	kept := append(errs[:maxRepeatedNotes:maxRepeatedNotes],
		fmt.Errorf("%d more %s errors, the first: %w", len(errs)-maxRepeatedNotes, stream, errs[maxRepeatedNotes]))
	return errors.Join(kept...)
}
