package crashinfo

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"golang.org/x/arch/x86/x86asm"
)

// Crash inconsistencies, after rust-minidump's check_for_crash_inconsistencies:
// the OS's crash reason contradicts the faulting instruction or the memory
// map. The names are rust-minidump's JSON spellings.
const (
	IntDivByZeroNotPossible                    = "int_div_by_zero_not_possible"
	PrivInstructionCrashWithoutPrivInstruction = "priv_instruction_crash_without_priv_instruction"
	NonCanonicalAddressFalselyReported         = "non_canonical_address_falsely_reported"
	AccessViolationWhenAccessAllowed           = "access_violation_when_access_allowed"
	CrashingAccessNotFoundInMemoryAccesses     = "crashing_access_not_found_in_memory_accesses"
)

// InconsistencyText is rust-minidump's human sentence for an inconsistency.
var InconsistencyText = map[string]string{
	IntDivByZeroNotPossible:                    "Crash reason is an integer division by zero but the crashing instruction is not a division",
	PrivInstructionCrashWithoutPrivInstruction: "Crash reason is a privileged instruction but crashing instruction is not a privileged one",
	NonCanonicalAddressFalselyReported:         "Crash address is reported as a non-canonical x86-64 address but the actual address is a canonical one",
	AccessViolationWhenAccessAllowed:           "Crash reason is access violation exception but access is allowed",
	CrashingAccessNotFoundInMemoryAccesses:     "Crash address not found among the memory accesses of the crashing instruction",
}

// properties are the facts about an x86/amd64 instruction the checks use
// (rust-minidump computes them for amd64, the one CPU it disassembles).
type properties struct {
	derivable    bool // its accesses have directions (x86Ops)
	division     bool
	privileged   bool
	gpfOnlyNonCa bool // a #GP can only come from a non-canonical address
}

func x86Properties(op x86asm.Op) *properties {
	_, derivable := x86Ops[op]
	return &properties{
		derivable:    derivable,
		division:     op == x86asm.DIV || op == x86asm.IDIV,
		privileged:   x86Privileged[op],
		gpfOnlyNonCa: derivable && op != x86asm.MOVAPS,
	}
}

// x86Privileged is rust-minidump's list of privileged instructions (it
// counts every mov, since moves to control registers are privileged),
// without the VMX instructions x86asm does not decode.
var x86Privileged = map[x86asm.Op]bool{
	x86asm.CLI: true, x86asm.CLTS: true, x86asm.HLT: true, x86asm.IN: true, x86asm.INSB: true,
	x86asm.INSW: true, x86asm.INSD: true, x86asm.INT: true, x86asm.INTO: true, x86asm.INVD: true,
	x86asm.INVLPG: true, x86asm.IRET: true, x86asm.IRETD: true,
	x86asm.IRETQ: true, x86asm.LGDT: true, x86asm.LIDT: true, x86asm.LLDT: true, x86asm.LMSW: true,
	x86asm.LTR: true, x86asm.MONITOR: true, x86asm.MOV: true, x86asm.MWAIT: true, x86asm.OUT: true,
	x86asm.OUTSB: true, x86asm.OUTSW: true, x86asm.OUTSD: true, x86asm.RDMSR: true, x86asm.RDPMC: true,
	x86asm.RDTSC: true, x86asm.RDTSCP: true, x86asm.LRET: true, x86asm.STI: true, x86asm.SWAPGS: true,
	x86asm.SYSEXIT: true, x86asm.SYSRET: true, x86asm.WBINVD: true, x86asm.WRMSR: true, x86asm.XSETBV: true,
}

// Exception codes of the checks.
const (
	winIntDivideByZero = 0xc0000094
	winPrivInstruction = 0xc0000096
	winStackOverflow   = 0xc00000fd
	linuxSIGFPE        = 8
	linuxFPEIntDiv     = 1
	macArithmetic      = 3
	macI386Div         = 1
)

func isWindows(p minidump.Platform) bool {
	switch p {
	case minidump.PlatformWin32NT, minidump.PlatformWin32Windows, minidump.PlatformWin32CE, minidump.PlatformWin32s:
		return true
	}
	return false
}

func inconsistencies(in *Input, r *Result, props *properties) []string {
	ex := in.Exception
	if ex == nil {
		return nil
	}
	var out []string
	win := isWindows(in.Platform)
	x86 := in.Arch == minidump.ArchX86 || in.Arch == minidump.ArchAMD64
	mac := in.Platform == minidump.PlatformMacOSX || in.Platform == minidump.PlatformIOS
	linux := in.Platform == minidump.PlatformLinux || in.Platform == minidump.PlatformAndroid
	divByZero := win && ex.Code == winIntDivideByZero || linux && ex.Code == linuxSIGFPE && ex.Flags == linuxFPEIntDiv ||
		mac && x86 && ex.Code == macArithmetic && ex.Flags == macI386Div
	op := crashMemOp(in)
	switch {
	case divByZero:
		if props != nil && !props.division {
			out = append(out, IntDivByZeroNotPossible)
		}
	case win && ex.Code == winPrivInstruction:
		if props != nil && !props.privileged {
			out = append(out, PrivInstructionCrashWithoutPrivInstruction)
		}
	case win && ex.Code == winAccessViolation && op == opRead:
		notAmong := crashingAccessNotAmong(in, r, props, op)
		if isGeneralProtectionFault(in) && notAmong {
			if props != nil && props.gpfOnlyNonCa && nonCanonicalNotAmong(r, props) {
				out = append(out, NonCanonicalAddressFalselyReported)
			}
			break
		}
		if notAmong {
			out = append(out, CrashingAccessNotFoundInMemoryAccesses)
		}
		if accessAllowed(in, op) {
			out = append(out, AccessViolationWhenAccessAllowed)
		}
	case win && (ex.Code == winStackOverflow || ex.Code == winAccessViolation && (op == opWrite || op == opExec)):
		if crashingAccessNotAmong(in, r, props, op) {
			out = append(out, CrashingAccessNotFoundInMemoryAccesses)
		}
		if accessAllowed(in, op) {
			out = append(out, AccessViolationWhenAccessAllowed)
		}
	}
	return out
}

// contains tells an access of type t covering addr (sizes wrap at 2^64).
func contains(accesses []Access, addr uint64, t AccessType) bool {
	for _, a := range accesses {
		if a.Size == 0 || a.Type != t {
			continue
		}
		end := a.Address + uint64(a.Size)
		if end < a.Address {
			if a.Address <= addr || addr < end {
				return true
			}
		} else if a.Address <= addr && addr < end {
			return true
		}
	}
	return false
}

func crashingAccessNotAmong(in *Input, r *Result, props *properties, op memOp) bool {
	if !r.AccessesKnown {
		return false
	}
	derivable := props != nil && props.derivable
	addr := in.CrashAddress
	switch {
	case in.Exception.Code == winStackOverflow:
		return derivable && len(r.Accesses) == 0
	case op == opRead:
		return derivable && !contains(r.Accesses, addr, AccessRead) && !contains(r.Accesses, addr, AccessReadWrite)
	case op == opWrite:
		return derivable && !contains(r.Accesses, addr, AccessWrite) && !contains(r.Accesses, addr, AccessReadWrite)
	case op == opExec:
		ip, ok := in.Context.IP()
		return ok && ip != addr
	}
	return false
}

func nonCanonicalNotAmong(r *Result, props *properties) bool {
	if !props.derivable || !r.AccessesKnown || !r.IPUpdateKnown {
		return false
	}
	for _, a := range r.Accesses {
		if nonCanonical(a.Address) {
			return false
		}
	}
	return r.IPUpdate == nil || !nonCanonical(r.IPUpdate.Address)
}

// accessAllowed: the memory map allows the faulting operation at the crash
// address, yet the OS reported an access violation.
func accessAllowed(in *Input, op memOp) bool {
	m := regionAt(sortedRegions(in.Regions), in.CrashAddress)
	if m == nil {
		return false
	}
	switch op {
	case opRead:
		return m.Read
	case opWrite:
		return m.Write
	case opExec:
		return m.Exec
	}
	return false
}
