package walker

// SignalFrame is the stack span [Lo, Hi) of a kernel signal frame a walker
// validated and unwound (RuleSignal): the registers the kernel saved for
// the interrupted frame, and what precedes them in the frame.
type SignalFrame struct{ Lo, Hi uint64 }

// maxSignalFrames bounds the spans a walk keeps: a stack of nested
// signals deeper than this is not plausible, and the spans are evidence
// against scan candidates, not needed to walk.
const maxSignalFrames = 64

// NoteSignalFrame records that the words in [lo, hi) belong to a signal
// frame the walker validated: they are saved registers, never a return
// address of a frame of this stack (InSignalFrame).
func (w *Walker) NoteSignalFrame(lo, hi uint64) {
	if lo < hi && len(w.signalFrames) < maxSignalFrames {
		w.signalFrames = append(w.signalFrames, SignalFrame{Lo: lo, Hi: hi})
	}
}

// InSignalFrame returns the validated signal frame of this walk that
// holds the stack word at addr.
func (w *Walker) InSignalFrame(addr uint64) (SignalFrame, bool) {
	for _, s := range w.signalFrames {
		if addr >= s.Lo && addr < s.Hi {
			return s, true
		}
	}
	return SignalFrame{}, false
}
