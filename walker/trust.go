package walker

// Trust says how a frame was recovered, from least to most trustworthy
// (Breakpad's StackFrame::FrameTrust order).
type Trust uint8

// Trust levels.
const (
	TrustNone         Trust = iota // unknown
	TrustScan                      // found by scanning the stack for a return address
	TrustCFIScan                   // x86: STACK WIN/CFI result corrected by scanning
	TrustFramePointer              // followed the previous frame's frame pointer
	TrustCFI                       // derived from call frame info (STACK CFI or STACK WIN)
	TrustPrewalked                 // recovered by an external stack walker
	TrustContext                   // the thread's context (frame 0)
	TrustInline                    // an inlined call expanded from INLINE records
	TrustLeaf                      // amd64 Windows: simulated return from a leaf function
	TrustSignal                    // the registers a signal handler's frame saved (Linux rt_sigframe)
)

// String returns Breakpad's description, as printed after "Found by: ".
func (t Trust) String() string {
	switch t {
	case TrustContext:
		return "given as instruction pointer in context"
	case TrustPrewalked:
		return "recovered by external stack walker"
	case TrustCFI:
		return "call frame info"
	case TrustCFIScan:
		return "call frame info with scanning"
	case TrustFramePointer:
		return "previous frame's frame pointer"
	case TrustScan:
		return "stack scanning"
	case TrustInline:
		return "inline record"
	case TrustLeaf:
		return "simulating a return from leaf function"
	case TrustSignal:
		return "signal context saved on the stack"
	}
	return "unknown"
}

// ShortName returns the name rust-minidump's JSON output uses ("trust" field).
// rust-minidump has no leaf or CFI-with-scanning levels; their names here
// ("leaf", "cfi_scan") follow the same style.
func (t Trust) ShortName() string {
	switch t {
	case TrustContext:
		return "context"
	case TrustPrewalked:
		return "prewalked"
	case TrustCFI:
		return "cfi"
	case TrustCFIScan:
		return "cfi_scan"
	case TrustFramePointer:
		return "frame_pointer"
	case TrustScan:
		return "scan"
	case TrustInline:
		return "inline"
	case TrustLeaf:
		return "leaf"
	case TrustSignal:
		return "signal"
	}
	return "none"
}

// Scanned reports whether the frame counts against the stack-scan cap
// (Breakpad counts none, scan and cfi_scan frames).
func (t Trust) Scanned() bool { return t == TrustNone || t == TrustScan || t == TrustCFIScan }
