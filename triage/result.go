package triage

// Statuses of a Result. Every status other than StatusOK means the input
// could not be fully processed.
const (
	StatusOK = "ok"
	// StatusUnreadable: the input could not be opened or read.
	StatusUnreadable = "unreadable"
	// StatusInvalid: the input is not a dump this tool reads (no minidump
	// header, a broken microdump or ELF core).
	StatusInvalid = "invalid"
	// StatusPartial: the dump was read but a stream the report needs (system
	// info, exception, thread or module list) is broken; what could be read
	// is still reported.
	StatusPartial = "partial"
	// StatusTimeout: processing took longer than the per-dump limit.
	StatusTimeout = "timeout"
	// StatusInternalError: processing panicked; a bug in this tool.
	StatusInternalError = "internal_error"
)

// Frame is one frame of a stack, innermost first. Inlined frames come
// before the physical frame they were inlined into.
type Frame struct {
	Module   string `json:"module,omitempty"`   // code file base name; "" when in no module
	Function string `json:"function,omitempty"` // demangled unless asked otherwise; "" when unknown
	File     string `json:"file,omitempty"`     // source file; "" when unknown
	Line     int    `json:"line,omitempty"`     // source line; 0 when unknown
	// Offset is the frame's instruction address relative to its module's
	// base ("0x1a2b"), or the absolute address when Module is "".
	Offset string `json:"offset"`
	// Trust says how the frame was found: context, cfi, frame_pointer,
	// scan, cfi_scan, prewalked, inline (rust-minidump's names).
	Trust string `json:"trust"`
}

// Module names a module of the crashing stack, for the summary's
// "modules and versions involved".
type Module struct {
	Name    string `json:"name"`              // code file base name
	Version string `json:"version,omitempty"` // file version, when the dump has one
	DebugID string `json:"debug_id,omitempty"`
}

// Result is what batch triage reports of one input: one JSON line.
type Result struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`

	OS  string `json:"os,omitempty"`
	CPU string `json:"cpu,omitempty"`

	Crashed      bool   `json:"crashed"`
	CrashReason  string `json:"crash_reason,omitempty"`
	CrashAddress string `json:"crash_address,omitempty"`
	// CrashingThread is the crashed (or dump-requesting) thread, numbered as
	// the single-dump mode's text output numbers threads; nil when none.
	CrashingThread *int    `json:"crashing_thread"`
	Frames         []Frame `json:"frames"`
	// Modules lists the modules the crashing stack's frames are in, once
	// each, in the order of first appearance.
	Modules []Module `json:"modules,omitempty"`
	// MissingSymbols lists the modules of the dump whose symbols were asked
	// for and not found ("name debug_id").
	MissingSymbols []string `json:"modules_without_symbols,omitempty"`

	Signature string `json:"signature,omitempty"`
	StackID   string `json:"stack_id,omitempty"`

	// Milliseconds is the wall time spent on this input.
	Milliseconds int64 `json:"ms"`
}

// OK reports whether the input was fully processed.
func (r *Result) OK() bool { return r.Status == StatusOK }
