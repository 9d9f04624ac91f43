package walker

// Mode selects the rules every architecture's walker follows. It is the
// only switch between Breakpad's behaviour and ours: each architecture
// chooses its table of caller rules (CallerRules) from Env.Mode, the
// Breakpad differences being rules of the Extended tables only
// (docs/design.md, "Caller rules").
type Mode uint8

// Modes.
const (
	// Extended (the zero value) adds the rules Breakpad lacks to its
	// methods: return addresses checked against the dump's code
	// (Env.Code) and the symbols, prologue readings, leaf returns, frame
	// records told from their callers', the callee's own parameter size
	// for x86 STACK WIN programs.
	Extended Mode = iota
	// Breakpad reproduces Breakpad's walkers exactly: their methods in
	// their order, their scans (the first word that points into a
	// function), their mistakes. The dump's code is never read.
	Breakpad
)

// String returns the mode's name.
func (m Mode) String() string {
	if m == Breakpad {
		return "breakpad"
	}
	return "extended"
}

// Breakpad reports whether the walk reproduces Breakpad's walkers. The
// rule tables decide most differences; what asks this is listed in
// docs/design.md ("Caller rules").
func (w *Walker) Breakpad() bool { return w.Env.Mode == Breakpad }

// HasCode reports whether the walk may read the dump's code: Env.Code is
// set and the mode is not Breakpad's.
func (w *Walker) HasCode() bool { return w.Env.Code != nil && w.Env.Mode != Breakpad }
