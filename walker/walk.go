package walker

import (
	"encoding/binary"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// Breakpad's caps.
const (
	DefaultMaxFrames  = 1 << 20 // frames per stack (Stackwalker::max_frames_)
	DefaultMaxScanned = 1 << 14 // scanned frames after which scanning is refused
	RASearchWords     = 40      // words scanned for a return address (160 from the context frame)
	MinCallerIP       = 1 << 12 // a caller IP below this ends the walk
)

// Memory reads target memory: it fills all of p or fails.
type Memory interface {
	ReadMemory(addr uint64, p []byte) error
}

// Env is what a walk of one thread needs besides its context.
type Env struct {
	// OS is Breakpad's short OS name ("windows", "mac", "ios", "linux",
	// "android", ...): amd64 simulates leaf returns only on "windows" and
	// follows frame pointers everywhere else; arm uses r7 as FP on "ios".
	OS string
	// Memory is the thread's stack memory (Breakpad walks only the thread's
	// stack region). Nil: only the context frame is produced.
	Memory Memory
	// Code is all the memory the dump holds (every memory-list region),
	// read for the instructions before a candidate return address: a
	// scanned word no call instruction precedes is no return address
	// (walker/internal/retaddr). Nil when the dump holds none; never read
	// in Breakpad mode (Walker.HasCode).
	Code     Memory
	Modules  *ModuleMap   // loaded modules
	Unloaded ModuleFinder // unloaded modules, for naming frames only; nil: none
	Symbols  SymbolSource // nil: walk without symbols
	// Native gives the modules' own executable files (unwind tables,
	// prologues, code) where the symbol files fall short; nil: none.
	// Read only in the Extended mode. The processor also serves their
	// code through Code.
	Native NativeSource
	// Executable is the process's memory map as the dump lists it
	// (Linux's maps stream, the memory info list): whether addr lies in
	// a mapping with execute permission. Nil when the dump lists none:
	// then an address outside every module may be code (JIT). Read only
	// in the Extended mode (Walker.NotCode).
	Executable func(addr uint64) bool

	// EntryPoint, when not 0, is the program's entry address (Linux
	// AT_ENTRY, the address of _start). A frame whose function starts there
	// is the outermost: the kernel entered it, so nothing above it on the
	// stack is a return address (gdb stops there too). Breakpad does not
	// know this and walks on into junk.
	EntryPoint uint64
	// EntryModule and EntrySymbol name the entry function when the entry
	// address is unknown (a Linux dump without an auxv stream): a frame in
	// EntryModule whose function is EntrySymbol ("_start") is the outermost.
	EntryModule *Module
	EntrySymbol string
	// NoInterpreter: the auxiliary vector says the kernel started the
	// program without an interpreter (AT_BASE 0): nothing ran on the main
	// thread's stack before the entry function, so the frame of the
	// function it calls holds only what that function wrote (walker/arm's
	// start-function frame). False when unknown.
	NoInterpreter bool
	// Walks, when not nil, is the memory the walk reuses (Walks): one
	// goroutine's, for its walks one after another.
	Walks *Walks

	MaxFrames  int // 0 means DefaultMaxFrames
	MaxScanned int // 0 means DefaultMaxScanned

	// Mode selects Breakpad's rules or ours (the zero value, Extended).
	Mode Mode
	// Trace records, in each frame's Steps and the stack's End, every
	// method tried and every candidate rejected (see Step).
	Trace bool
}

// Arch recovers caller frames for one CPU architecture.
type Arch interface {
	// Caller returns the caller of w.Last(), or nil when no method works or
	// the architecture's termination rule (usually Terminate) ends the walk.
	// It sets the returned frame's Context, Trust and Instruction.
	// scanAllowed is false once the stack-scan cap is reached.
	Caller(w *Walker, scanAllowed bool) *Frame
}

// Stack is the result of a walk.
type Stack struct {
	Frames []*Frame // innermost first; inlined frames precede their physical frame
	// NoSymbols and CorruptSymbols list, in the order met, the modules of
	// frames whose symbols were missing or corrupt: Breakpad's
	// modules_without_symbols / modules_with_corrupt_symbols.
	NoSymbols      []*Module
	CorruptSymbols []*Module
	Truncated      bool // stopped at the frame cap
	// End holds, when Env.Trace is set, the steps tried after the last
	// frame: why the walk ended there.
	End []Step
}

// Walker is the state of one walk, handed to the Arch for each caller.
type Walker struct {
	Env      *Env
	physical []*Frame
	steps    []Step // traced steps for the next frame (Env.Trace)
	found    string // traced note of the method that produces it
	// signalFrames are the signal frames validated so far (NoteSignalFrame).
	signalFrames []SignalFrame
	// scratch receives the bytes of the reads below: a buffer handed to
	// the Memory interface escapes, so the callers' small arrays would
	// each be a heap allocation; this one is part of the Walker.
	scratch [32]byte
	// eval and cfi are CallerByCFI's evaluator and register file, kept
	// for the whole walk so that a frame's CFI allocates nothing.
	eval symfile.Evaluator
	cfi  cfiRegisters
	// cfiFrame is the register file of CallerByCFI's compiled rows.
	cfiFrame symfile.CFIFrame
	// frames, when not nil, gives NewFrame's frames (Walks).
	frames *framePool
}

// NewFrame returns f in the walk's memory: in the Walks' frames, reused
// from walk to walk, when the walk is a Walks', else in a new Frame.
// Architectures make their callers with it.
func (w *Walker) NewFrame(f Frame) *Frame {
	var p *Frame
	if w.frames == nil {
		p = new(Frame) // not &f: f would then be on the heap on both paths
	} else {
		p = w.frames.next()
	}
	*p = f
	return p
}

// framePool hands out frames from slabs kept from walk to walk.
type framePool struct {
	slabs [][]Frame
	slab  int // the slab next hands out from
	used  int // frames handed out of slabs[slab]
}

// framePoolSlab is the frames of one slab: most stacks are a few dozen
// frames deep, candidates included. maxPooledFrames bounds the frames a
// Walks keeps (about 450 KB); a deeper walk's further frames are each
// allocated.
const (
	framePoolSlab   = 32
	maxPooledFrames = 1024
)

func (p *framePool) next() *Frame {
	if p.slab >= maxPooledFrames/framePoolSlab-1 && p.used == framePoolSlab {
		return new(Frame) // a walk of more frames than a pool keeps
	}
	if p.slab < len(p.slabs) && p.used == len(p.slabs[p.slab]) {
		p.slab, p.used = p.slab+1, 0
	}
	if p.slab == len(p.slabs) {
		p.slabs = append(p.slabs, make([]Frame, framePoolSlab))
	}
	f := &p.slabs[p.slab][p.used]
	p.used++
	return f
}

// reset makes every frame free again, zeroed, so that the frames of the
// last walk hold nothing of it.
func (p *framePool) reset() {
	for i := 0; i <= p.slab && i < len(p.slabs); i++ {
		n := len(p.slabs[i])
		if i == p.slab {
			n = p.used
		}
		clear(p.slabs[i][:n])
	}
	p.slab, p.used = 0, 0
}

// Walks keeps one goroutine's walking memory from walk to walk: its
// Walker (evaluator, register files, buffers) and the frames the
// architectures make (Walker.NewFrame), so that a batch of walks does not
// allocate them walk after walk. A walk whose Env.Walks it is uses it; the
// frames of its Stack are valid only until the next such walk (or Done):
// a caller that keeps them copies them first (the processor does). The zero value is ready for use; a
// Walks is not safe for concurrent use.
type Walks struct {
	w      Walker
	frames framePool
}

// walker returns s's Walker, ready for a walk over env.
func (s *Walks) walker(env *Env) *Walker {
	s.Done()
	w := &s.w
	w.Env, w.physical, w.steps, w.found = env, w.physical[:0], nil, ""
	w.signalFrames = w.signalFrames[:0]
	w.frames = &s.frames
	return w
}

// Done drops the last walk's frames, which s's memory then holds nothing
// of: a caller that copied them calls it before keeping s for later walks.
func (s *Walks) Done() {
	s.frames.reset()
	clear(s.w.physical)
	s.w.Env, s.w.steps = nil, nil
}

// NewWalker returns a Walker over env with no frames; tests use it to drive
// an Arch frame by frame through Push.
func NewWalker(env *Env) *Walker { return &Walker{Env: env} }

// Frames returns the physical frames so far (no inlined ones), innermost first.
func (w *Walker) Frames() []*Frame { return w.physical }

// Last returns the outermost physical frame so far.
func (w *Walker) Last() *Frame {
	if len(w.physical) == 0 {
		return nil
	}
	return w.physical[len(w.physical)-1]
}

// Push appends a physical frame, filling its module and symbols.
func (w *Walker) Push(f *Frame) {
	w.Symbolize(f, false)
	w.physical = append(w.physical, f)
}

// ContextFrame returns frame 0 for a thread's context.
func ContextFrame(ctx minidump.Context) *Frame {
	ip, _ := ctx.IP()
	return &Frame{Instruction: ip, Context: ctx, Trust: TrustContext, Rule: RuleContext}
}

// Walk walks the stack of one thread from ctx, with env.Walks' memory
// when it is set.
func Walk(env *Env, arch Arch, ctx minidump.Context) *Stack {
	if env.Walks != nil {
		return walk(env.Walks.walker(env), arch, ctx)
	}
	// Most stacks are a few frames deep: start with room for them rather
	// than growing from one.
	return walk(&Walker{Env: env, physical: make([]*Frame, 0, initialFrames)}, arch, ctx)
}

// initialFrames is the room a walk's frame lists start with.
const initialFrames = 16

// walk is Walk with w, a Walker over its env with no frames.
func walk(w *Walker, arch Arch, ctx minidump.Context) *Stack {
	env := w.Env
	maxFrames := env.MaxFrames
	if maxFrames <= 0 {
		maxFrames = DefaultMaxFrames
	}
	maxScanned := env.MaxScanned
	if maxScanned <= 0 {
		maxScanned = DefaultMaxScanned
	}
	st := &Stack{Frames: make([]*Frame, 0, initialFrames)}
	scanned := 0
	frame := w.NewFrame(*ContextFrame(ctx))
	if env.Trace {
		w.Found("the thread's registers")
		frame.Steps = w.takeSteps(frame)
	}
	for frame != nil {
		inlines, status := w.symbolize(frame, true)
		switch status {
		case SymbolsMissing:
			st.NoSymbols = addModule(st.NoSymbols, frame.Module)
		case SymbolsCorrupt:
			st.CorruptSymbols = addModule(st.CorruptSymbols, frame.Module)
		}
		if frame.Trust.Scanned() {
			scanned++
		}
		st.Frames = append(st.Frames, inlines...)
		st.Frames = append(st.Frames, frame)
		w.physical = append(w.physical, frame)
		if len(st.Frames) > maxFrames {
			st.Truncated = true
			w.Reject(RuleStop, "frame cap %d reached", maxFrames)
			break
		}
		if env.Memory == nil {
			w.Reject(RuleStop, "no stack memory")
			break
		}
		if env.isEntry(frame) || frame.Function == "" && env.EntryPoint != 0 && w.nativeStartsAt(frame, env.EntryPoint) {
			name := frame.Function
			if name == "" {
				name = "the function at the program's entry (its file's evidence)"
			}
			w.Reject(RuleStop, "%s is the program's entry: nothing above it returns", name)
			break
		}
		frame = arch.Caller(w, scanned < maxScanned)
		if env.Trace {
			if frame == nil {
				w.Reject(RuleStop, "no method found a caller")
				st.End = w.takeSteps(nil)
			} else {
				frame.Steps = w.takeSteps(frame)
			}
		}
	}
	if env.Trace && st.End == nil {
		st.End = w.takeSteps(nil)
	}
	return st
}

// isEntry reports whether f is the program's entry function.
func (env *Env) isEntry(f *Frame) bool {
	if f.Function == "" {
		return false
	}
	if env.EntryPoint != 0 {
		return f.FunctionBase == env.EntryPoint
	}
	return env.EntrySymbol != "" && f.Module != nil && f.Module == env.EntryModule && f.Function == env.EntrySymbol
}

func addModule(list []*Module, m *Module) []*Module {
	if m == nil {
		return list
	}
	for _, x := range list {
		if x == m {
			return list
		}
	}
	return append(list, m)
}

// Terminate is Breakpad's shared stop rule: the walk ends when the caller's
// IP is below 4096 or its SP does not lie above the callee's (on the first
// unwind from the context frame an equal SP is allowed, for a leaf frame
// that has not pushed anything).
func Terminate(callerIP, callerSP, calleeSP uint64, firstUnwind bool) bool {
	if callerIP < MinCallerIP {
		return true
	}
	if firstUnwind {
		return callerSP < calleeSP
	}
	return callerSP <= calleeSP
}

// ModuleAt returns the loaded module containing addr, or nil.
func (w *Walker) ModuleAt(addr uint64) *Module { return w.Env.Modules.At(addr) }

// NotCode reports whether the dump shows that addr is no instruction of
// the process: no module holds it and the process's memory map
// (Env.Executable) lists it in no executable mapping (data, the heap,
// the stack, or unmapped). False when the map is unknown (JIT code lies
// outside every module) and in Breakpad's mode.
func (w *Walker) NotCode(addr uint64) bool {
	return !w.Breakpad() && w.Env.Executable != nil && w.ModuleAt(addr) == nil && !w.Env.Executable(addr)
}

// ReadUint32 reads a little-endian 32-bit word of stack memory.
func (w *Walker) ReadUint32(addr uint64) (uint32, bool) {
	if w.Env.Memory == nil || addr > 1<<64-4 {
		return 0, false
	}
	b := w.scratch[:4]
	if w.Env.Memory.ReadMemory(addr, b) != nil {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b), true
}

// ReadUint64 reads a little-endian 64-bit word of stack memory.
func (w *Walker) ReadUint64(addr uint64) (uint64, bool) {
	if w.Env.Memory == nil || addr > 1<<64-8 {
		return 0, false
	}
	b := w.scratch[:8]
	if w.Env.Memory.ReadMemory(addr, b) != nil {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b), true
}

// ReadWord reads a word of size 4 or 8.
func (w *Walker) ReadWord(addr uint64, size int) (uint64, bool) {
	if size == 4 {
		v, ok := w.ReadUint32(addr)
		return uint64(v), ok
	}
	return w.ReadUint64(addr)
}

// ReadCode fills p with the dump's memory at addr from Env.Code; false
// when there is no such memory or the mode is Breakpad's. p does not
// escape: a caller's array stays on its stack.
func (w *Walker) ReadCode(addr uint64, p []byte) bool {
	b := w.readCode(addr, len(p))
	copy(p, b)
	return b != nil
}

// CodeIs reports whether the dump's code at addr (Env.Code) starts with
// want.
func (w *Walker) CodeIs(addr uint64, want []byte) bool {
	b := w.readCode(addr, len(want))
	return b != nil && string(b) == string(want)
}

// readCode returns the n bytes of code at addr, or nil; the slice is
// w.scratch when n fits, valid until the next read.
func (w *Walker) readCode(addr uint64, n int) []byte {
	if !w.HasCode() || addr+uint64(n) < addr {
		return nil
	}
	var b []byte
	if n <= len(w.scratch) {
		b = w.scratch[:n]
	} else {
		b = make([]byte, n)
	}
	if w.Env.Code.ReadMemory(addr, b) != nil {
		return nil
	}
	return b
}

// symbolMemory gives symfile's evaluator the walker's stack memory. A
// pointer to the Walker, it is an interface value without an allocation.
type symbolMemory Walker

func (m *symbolMemory) ReadMemory(addr uint64, p []byte) error {
	if m.Env.Memory == nil {
		return errNoMemory
	}
	return m.Env.Memory.ReadMemory(addr, p)
}

// SymbolMemory returns the stack memory in the form symfile's evaluator takes.
func (w *Walker) SymbolMemory() symfile.Memory { return (*symbolMemory)(w) }
