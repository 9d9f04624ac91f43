package crashinfo

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Memory reads the crashed process's memory captured in the dump
// (*minidump.MemoryList satisfies it). ReadMemory fails unless every byte of
// p was captured.
type Memory interface {
	ReadMemory(addr uint64, p []byte) error
}

// Region is one mapping of the process's memory map (Windows' memory info
// list or Linux's /proc/self/maps), with its access rights.
type Region struct {
	Base, Size        uint64
	Read, Write, Exec bool
}

// Input is what Analyze needs. Memory, Exception and Regions may be nil.
type Input struct {
	Arch      minidump.Arch
	Platform  minidump.Platform
	Context   *minidump.Context // the crashing (exception) context
	Thumb     bool              // arm: the CPSR's T bit was set
	Memory    Memory
	Exception *minidump.Exception
	// CrashAddress is the crash address as reported (minidump.CrashAddress).
	CrashAddress uint64
	Regions      []Region
}

// AccessType is the direction of a memory access.
type AccessType int

// Access types. AccessUnknown is rust-minidump's "underivable": the
// instruction touches the address but its direction is not modelled.
const (
	AccessUnknown AccessType = iota
	AccessRead
	AccessWrite
	AccessReadWrite
)

func (t AccessType) String() string {
	switch t {
	case AccessRead:
		return "read"
	case AccessWrite:
		return "write"
	case AccessReadWrite:
		return "readwrite"
	}
	return ""
}

// Access is one memory access of the faulting instruction.
type Access struct {
	Address uint64
	Size    int // bytes; 0 when unknown
	Type    AccessType
	// LikelyNull says the address came from a null base register plus
	// an offset (or is 0 itself).
	LikelyNull bool
	// LikelyGuardPage: the address lies in a small inaccessible mapping
	// next to an accessible one (rust-minidump's guard-page heuristic).
	LikelyGuardPage bool
}

// AdjustKind tells what an adjusted address means.
type AdjustKind int

const (
	// NonCanonical: the crash was an amd64 general protection fault and
	// Value is the non-canonical address the instruction used.
	NonCanonical AdjustKind = iota + 1
	// NullPointer: Value is the offset from a null base pointer.
	NullPointer
)

// Adjusted is a more useful address than the one the OS reported.
type Adjusted struct {
	Kind  AdjustKind
	Value uint64
}

// BitFlip is an address one bit away from the crash address (or a
// register the instruction used) that would have been valid.
type BitFlip struct {
	Address         uint64
	SourceRegister  string // "" when the crash address itself flipped
	IsNull          bool
	WasLow          bool
	WasNonCanonical bool
	NearbyRegisters int
	PoisonRegisters bool
	Confidence      float32
}

// Result is the analysis of a crash. The zero value means "nothing known".
type Result struct {
	// Instruction is the faulting instruction's text; "" when it could
	// not be decoded (then every other instruction fact is empty too).
	Instruction string
	// AccessesKnown says Accesses was determined (possibly empty: the
	// instruction touches no memory); false when a register it needs
	// is unknown or its operands are not modelled.
	AccessesKnown bool
	Accesses      []Access
	// IPUpdate is where a branch, call or return sends the instruction
	// pointer, when known; nil otherwise (also for no update).
	IPUpdate *Access
	// IPUpdateKnown says IPUpdate was determined: an update, or none
	// (IPUpdate nil) for an instruction that does not branch.
	IPUpdateKnown bool
	// Registers are the registers the instruction's address operands
	// use, sorted; they are tried for bit flips.
	Registers []string
	Adjusted  *Adjusted
	BitFlips  []BitFlip
	// Inconsistencies name the ways the OS's crash reason contradicts the
	// instruction or the memory map (rust-minidump's snake_case names:
	// IntDivByZeroNotPossible, ...); nil when none.
	Inconsistencies []string
}

// maxInstructionLen covers the longest encoding of every architecture
// (x86: 15 bytes).
const maxInstructionLen = 15

// decoded is one architecture's view of the faulting instruction.
type decoded struct {
	text      string
	accesses  []Access
	known     bool
	ipUpdate  *Access
	ipKnown   bool // ipUpdate determined (nil: no update)
	props     *properties
	registers []string
}

// Analyze decodes the faulting instruction and derives the crash facts.
// The bit-flip test needs no instruction: it runs on the crash address
// whenever the architecture allows it.
func Analyze(in *Input) Result {
	var r Result
	if in == nil || in.Context == nil {
		return r
	}
	var props *properties
	if d := decode(in); d != nil {
		props = d.props
		r.Instruction = d.text
		r.AccessesKnown = d.known
		if d.known {
			r.Accesses = d.accesses
			if r.Accesses == nil {
				r.Accesses = []Access{}
			}
		}
		r.IPUpdate = d.ipUpdate
		r.IPUpdateKnown = d.ipKnown || d.ipUpdate != nil
		r.Registers = d.registers
		r.Adjusted = adjustedAddress(in, &r)
		markGuardPages(r.Accesses, sortedRegions(in.Regions))
	}
	r.BitFlips = bitFlips(in, &r)
	r.Inconsistencies = inconsistencies(in, &r, props)
	return r
}

// decode decodes the instruction at the context's instruction pointer;
// nil when its bytes are missing or undecodable.
func decode(in *Input) *decoded {
	ip, ok := in.Context.IP()
	if !ok || in.Memory == nil {
		return nil
	}
	code := readCode(in.Memory, ip)
	switch in.Arch {
	case minidump.ArchX86:
		return analyzeX86(code, in, 32)
	case minidump.ArchAMD64:
		return analyzeX86(code, in, 64)
	case minidump.ArchARM64, minidump.ArchARM64Old:
		return analyzeARM64(code, in)
	case minidump.ArchARM:
		if in.Thumb {
			return analyzeThumb(code, in)
		}
		return analyzeARM(code, in)
	}
	return nil
}

// readCode reads up to maxInstructionLen bytes at ip, fewer when the
// captured region ends sooner; nil when ip is not captured.
func readCode(m Memory, ip uint64) []byte {
	buf := make([]byte, maxInstructionLen)
	for n := maxInstructionLen; n > 0; n-- {
		if m.ReadMemory(ip, buf[:n]) == nil {
			return buf[:n]
		}
	}
	return nil
}

// regs reads register values by name from a context, remembering whether
// every one asked for was valid.
type regs struct {
	ctx *minidump.Context
	ok  bool
}

func (g *regs) get(name string) uint64 {
	v, ok := g.ctx.Get(name)
	if !ok {
		g.ok = false
	}
	return v
}
