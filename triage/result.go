package triage

import (
	"encoding/base64"
	"fmt"
	"unicode/utf8"
)

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
	// info, exception, thread or module list) is broken, or a stack was cut
	// by a bound (frames, walk time); what could be read is still reported.
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
	Path string `json:"path"`
	// PathBase64 is Path's bytes in standard base64 when they are not
	// valid UTF-8 (JSON would show such bytes as U+FFFD, and the line could
	// not be mapped back to its file); empty otherwise. SetPath sets both.
	PathBase64 string `json:"path_base64,omitempty"`
	Status     string `json:"status"`
	Error      string `json:"error,omitempty"`

	OS  string `json:"os,omitempty"`
	CPU string `json:"cpu,omitempty"`
	// Product and ProductVersion name the program that crashed: its main
	// module's code file base name and file version, when the dump has them.
	Product        string `json:"product,omitempty"`
	ProductVersion string `json:"product_version,omitempty"`

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

// SetPath sets Path, and PathBase64 when path is not valid UTF-8.
func (r *Result) SetPath(path string) {
	r.Path, r.PathBase64 = path, RawPath(path)
}

// RawPath is the base64 of path's bytes when they are not valid UTF-8, ""
// otherwise: the lossless form of a path that JSON cannot carry.
func RawPath(path string) string {
	if utf8.ValidString(path) {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte(path))
}

// PathFromRaw is the inverse of RawPath: the path whose bytes raw encodes,
// or lossy when raw is "".
func PathFromRaw(lossy, raw string) (string, error) {
	if raw == "" {
		return lossy, nil
	}
	b, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return "", fmt.Errorf("path_base64 %q: %w", raw, err)
	}
	return string(b), nil
}
