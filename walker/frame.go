package walker

import "github.com/minidump-stackwalk/minidump-stackwalk/minidump"

// Frame is one frame of a walked stack.
type Frame struct {
	// Instruction is the address used for module, symbol, CFI and STACK WIN
	// lookups: the IP for the context frame, the return address minus one
	// (x86, amd64; other architectures subtract their own amount) for callers,
	// and the physical frame's Instruction for an inlined frame.
	Instruction uint64

	// Context holds the registers recovered for this frame; only the valid
	// ones are known. Inlined frames carry no registers (Arch set, none valid).
	Context minidump.Context

	Trust Trust
	// Rule is the method that recovered the frame, finer than Trust.
	Rule Rule
	// Steps are, when the walk is traced (Env.Trace), the methods tried
	// for this frame and the candidates rejected, in order, and last the
	// step that produced it (Taken).
	Steps  []Step
	Module *Module // the module containing Instruction, nil when none

	// Symbol information, filled after the frame is recovered.
	Function     string // function (FUNC, INLINE_ORIGIN or PUBLIC) name; "" when unknown
	FunctionBase uint64 // absolute address of the function (for an inline: of its range)
	IsPublic     bool   // Function comes from a PUBLIC record (no FUNC covers the address)
	Multiple     bool   // the symbol's m flag
	ParamSize    uint32 // parameter_size of the FUNC or PUBLIC record

	SourceFile     string // "" when unknown
	SourceLine     int
	SourceLineBase uint64 // absolute start address of the line record

	// InlineDepth is 0 for a physical frame and n>0 for the n-th inlined
	// frame inserted before it, counted from the physical frame outward.
	InlineDepth int

	// ArchState is private state of the architecture walker that recovered
	// (or later examined) this frame, e.g. the x86 STACK WIN record used.
	ArchState any
}

// ReturnAddress is the address Breakpad prints for the frame and computes
// printed offsets from: on x86 and amd64 the IP register of a physical frame
// (for a caller, the return address itself), otherwise and for an inlined
// frame Instruction.
func (f *Frame) ReturnAddress() uint64 {
	return PrintedAddress(f.Trust, &f.Context, f.Instruction)
}

// PrintedAddress is Frame.ReturnAddress for a frame of trust whose
// context is ctx and lookup address instruction; the processor's own
// frames print the same.
func PrintedAddress(trust Trust, ctx *minidump.Context, instruction uint64) uint64 {
	if trust == TrustInline {
		return instruction
	}
	// Only Breakpad's x86 and amd64 frames print the IP register; its arm,
	// arm64 and other frames print the lookup address.
	if ctx.Arch != minidump.ArchX86 && ctx.Arch != minidump.ArchAMD64 {
		return instruction
	}
	if ip, ok := ctx.IP(); ok {
		return ip
	}
	return instruction
}

// HasSymbol reports whether a function name was found.
func (f *Frame) HasSymbol() bool { return f.Function != "" }

// ModuleOffset is ReturnAddress relative to the module's base (0 without module).
func (f *Frame) ModuleOffset() uint64 {
	if f.Module == nil {
		return 0
	}
	return f.ReturnAddress() - f.Module.Base
}

// FunctionOffset is ReturnAddress relative to the function's start.
func (f *Frame) FunctionOffset() uint64 { return f.ReturnAddress() - f.FunctionBase }

// LineOffset is ReturnAddress relative to the line record's start.
func (f *Frame) LineOffset() uint64 { return f.ReturnAddress() - f.SourceLineBase }
