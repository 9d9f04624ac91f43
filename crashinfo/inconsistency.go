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

// InconsistencyText is rust-minidump's human sentence for an inconsistency
// (one of the names above), or "".
func InconsistencyText(name string) string {
	switch name {
	case IntDivByZeroNotPossible:
		return "Crash reason is an integer division by zero but the crashing instruction is not a division"
	case PrivInstructionCrashWithoutPrivInstruction:
		return "Crash reason is a privileged instruction but crashing instruction is not a privileged one"
	case NonCanonicalAddressFalselyReported:
		return "Crash address is reported as a non-canonical x86-64 address but the actual address is a canonical one"
	case AccessViolationWhenAccessAllowed:
		return "Crash reason is access violation exception but access is allowed"
	case CrashingAccessNotFoundInMemoryAccesses:
		return "Crash address not found among the memory accesses of the crashing instruction"
	}
	return ""
}

// properties are the facts about an x86/amd64 instruction the checks use
// (rust-minidump computes them for amd64, the one CPU it disassembles).
type properties struct {
	derivable    bool // its accesses have directions (x86OpOf)
	division     bool
	privileged   bool
	gpfOnlyNonCa bool // a #GP can only come from a non-canonical address
}

func x86Properties(op x86asm.Op) *properties {
	_, derivable := x86OpOf(op)
	return &properties{
		derivable:    derivable,
		division:     op == x86asm.DIV || op == x86asm.IDIV,
		privileged:   x86Privileged(op),
		gpfOnlyNonCa: derivable && op != x86asm.MOVAPS,
	}
}

// x86Privileged reports whether op is in rust-minidump's list of
// privileged instructions (it counts every mov, since moves to control
// registers are privileged), less the VMX instructions x86asm does not
// decode.
func x86Privileged(op x86asm.Op) bool {
	switch op {
	case x86asm.CLI, x86asm.CLTS, x86asm.HLT, x86asm.IN, x86asm.INSB, x86asm.INSW, x86asm.INSD,
		x86asm.INT, x86asm.INTO, x86asm.INVD, x86asm.INVLPG, x86asm.IRET, x86asm.IRETD, x86asm.IRETQ,
		x86asm.LGDT, x86asm.LIDT, x86asm.LLDT, x86asm.LMSW, x86asm.LTR, x86asm.MONITOR, x86asm.MOV,
		x86asm.MWAIT, x86asm.OUT, x86asm.OUTSB, x86asm.OUTSW, x86asm.OUTSD, x86asm.RDMSR, x86asm.RDPMC,
		x86asm.RDTSC, x86asm.RDTSCP, x86asm.LRET, x86asm.STI, x86asm.SWAPGS, x86asm.SYSEXIT,
		x86asm.SYSRET, x86asm.WBINVD, x86asm.WRMSR, x86asm.XSETBV:
		return true
	}
	return false
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
