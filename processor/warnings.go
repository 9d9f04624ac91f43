package processor

import "fmt"

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
func (r *repeatedNotes) flush(st *ProcessState, what string) {
	for _, e := range r.errs {
		st.note(what, e)
	}
	if r.more > 0 {
		st.note(what, fmt.Errorf("%d more %s, the first: %w", r.more, r.what, r.first))
	}
}
