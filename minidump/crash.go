package minidump

import (
	"fmt"
	"slices"
)

// Exception codes and parameters used by the crash-reason rules.
const (
	ExceptionAccessViolation    = 0xc0000005
	ExceptionInPageError        = 0xc0000006
	ExceptionStackBufferOverrun = 0xc0000409 // also __fastfail, subcode in parameter 0
)

// winExceptionName names the Windows exception codes Breakpad names
// (those without parameter rules), or returns "".
func winExceptionName(code uint32) string {
	switch code {
	case 0x40010005:
		return "DBG_CONTROL_C"
	case 0x80000001:
		return "EXCEPTION_GUARD_PAGE"
	case 0x80000002:
		return "EXCEPTION_DATATYPE_MISALIGNMENT"
	case 0x80000003:
		return "EXCEPTION_BREAKPOINT"
	case 0x80000004:
		return "EXCEPTION_SINGLE_STEP"
	case 0xc0000008:
		return "EXCEPTION_INVALID_HANDLE"
	case 0xc000001d:
		return "EXCEPTION_ILLEGAL_INSTRUCTION"
	case 0xc0000025:
		return "EXCEPTION_NONCONTINUABLE_EXCEPTION"
	case 0xc0000026:
		return "EXCEPTION_INVALID_DISPOSITION"
	case 0xc000008c:
		return "EXCEPTION_BOUNDS_EXCEEDED"
	case 0xc000008d:
		return "EXCEPTION_FLT_DENORMAL_OPERAND"
	case 0xc000008e:
		return "EXCEPTION_FLT_DIVIDE_BY_ZERO"
	case 0xc000008f:
		return "EXCEPTION_FLT_INEXACT_RESULT"
	case 0xc0000090:
		return "EXCEPTION_FLT_INVALID_OPERATION"
	case 0xc0000091:
		return "EXCEPTION_FLT_OVERFLOW"
	case 0xc0000092:
		return "EXCEPTION_FLT_STACK_CHECK"
	case 0xc0000093:
		return "EXCEPTION_FLT_UNDERFLOW"
	case 0xc0000094:
		return "EXCEPTION_INT_DIVIDE_BY_ZERO"
	case 0xc0000095:
		return "EXCEPTION_INT_OVERFLOW"
	case 0xc0000096:
		return "EXCEPTION_PRIV_INSTRUCTION"
	case 0xc00000fd:
		return "EXCEPTION_STACK_OVERFLOW"
	case 0xc00000ff:
		return "EXCEPTION_BAD_FUNCTION_TABLE"
	case 0xc0000194:
		return "EXCEPTION_POSSIBLE_DEADLOCK"
	case 0xc0000374:
		return "EXCEPTION_HEAP_CORRUPTION"
	case 0xe0000008:
		return "Out of Memory"
	case 0xe06d7363:
		return "Unhandled C++ Exception"
	case 0x0517a7ed:
		return "Simulated Exception"
	}
	return ""
}

// fastFailNames are the __fastfail subcodes (FAST_FAIL_*), indexed by code.
// Code 0 (legacy GS violation) has no name of its own in Breakpad.
var fastFailNames = []string{
	"", "VTGUARD_CHECK_FAILURE", "STACK_COOKIE_CHECK_FAILURE", "CORRUPT_LIST_ENTRY",
	"INCORRECT_STACK", "INVALID_ARG", "GS_COOKIE_INIT", "FATAL_APP_EXIT",
	"RANGE_CHECK_FAILURE", "UNSAFE_REGISTRY_ACCESS", "GUARD_ICALL_CHECK_FAILURE",
	"GUARD_WRITE_CHECK_FAILURE", "INVALID_FIBER_SWITCH", "INVALID_SET_OF_CONTEXT",
	"INVALID_REFERENCE_COUNT", "", "", "", "INVALID_JUMP_BUFFER", "MRDATA_MODIFIED",
	"CERTIFICATION_FAILURE", "INVALID_EXCEPTION_CHAIN", "CRYPTO_LIBRARY",
	"INVALID_CALL_IN_DLL_CALLOUT", "INVALID_IMAGE_BASE", "DLOAD_PROTECTION_FAILURE",
	"UNSAFE_EXTENSION_CALL", "DEPRECATED_SERVICE_INVOKED", "INVALID_BUFFER_ACCESS",
	"INVALID_BALANCED_TREE", "INVALID_NEXT_THREAD", "GUARD_ICALL_CHECK_SUPPRESSED",
	"APCS_DISABLED", "INVALID_IDLE_STATE", "MRDATA_PROTECTION_FAILURE",
	"UNEXPECTED_HEAP_EXCEPTION", "INVALID_LOCK_STATE", "GUARD_JUMPTABLE",
	"INVALID_LONGJUMP_TARGET", "INVALID_DISPATCH_CONTEXT", "INVALID_THREAD",
	"INVALID_SYSCALL_NUMBER", "INVALID_FILE_OPERATION", "LPAC_ACCESS_DENIED",
	"GUARD_SS_FAILURE", "LOADER_CONTINUITY_FAILURE", "GUARD_EXPORT_SUPPRESSION_FAILURE",
	"INVALID_CONTROL_STACK", "SET_CONTEXT_DENIED", "INVALID_IAT", "HEAP_METADATA_CORRUPTION",
	"PAYLOAD_RESTRICTION_VIOLATION", "LOW_LABEL_ACCESS_DENIED", "ENCLAVE_CALL_FAILURE",
	"UNHANDLED_LSS_EXCEPTON", "ADMINLESS_ACCESS_DENIED", "UNEXPECTED_CALL",
	"CONTROL_INVALID_RETURN_ADDRESS", "UNEXPECTED_HOST_BEHAVIOR", "FLAGS_CORRUPTION",
	"VEH_CORRUPTION", "ETW_CORRUPTION", "RIO_ABORT", "INVALID_PFN",
	"GUARD_ICALL_CHECK_FAILURE_XFG", "CAST_GUARD", "HOST_VISIBILITY_CHANGE",
	"KERNEL_CET_SHADOW_STACK_ASSIST", "PATCH_CALLBACK_FAILED", "NTDLL_PATCH_FAILED",
	"INVALID_FLS_DATA",
}

var linuxSignals = []string{
	"", "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
	"SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
	"SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
	"SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS",
}

// Linux si_code names for the signals whose reason carries one, by signal.
var linuxSigCodes = [...][]string{
	4:  {"", "ILL_ILLOPC", "ILL_ILLOPN", "ILL_ILLADR", "ILL_ILLTRP", "ILL_PRVOPC", "ILL_PRVREG", "ILL_COPROC", "ILL_BADSTK"},
	7:  {"", "BUS_ADRALN", "BUS_ADRERR", "BUS_OBJERR", "BUS_MCEERR_AR", "BUS_MCEERR_AO"},
	8:  {"", "FPE_INTDIV", "FPE_INTOVF", "FPE_FLTDIV", "FPE_FLTOVF", "FPE_FLTUND", "FPE_FLTRES", "FPE_FLTINV", "FPE_FLTSUB"},
	11: {"", "SEGV_MAPERR", "SEGV_ACCERR", "SEGV_BNDERR", "SEGV_PKUERR"},
}

// fuchsiaException names a Fuchsia exception type, or returns "".
func fuchsiaException(code uint32) string {
	switch code {
	case 0x8:
		return "GENERAL"
	case 0x108:
		return "FATAL_PAGE_FAULT"
	case 0x208:
		return "UNDEFINED_INSTRUCTION"
	case 0x308:
		return "SW_BREAKPOINT"
	case 0x408:
		return "HW_BREAKPOINT"
	case 0x508:
		return "UNALIGNED_ACCESS"
	case 0x8008:
		return "THREAD_STARTING"
	case 0x8108:
		return "THREAD_EXITING"
	case 0x8208:
		return "POLICY_ERROR"
	case 0x8308:
		return "PROCESS_STARTING"
	}
	return ""
}

func hex32(v uint32) string { return fmt.Sprintf("0x%08x", v) }

// CrashReason returns Breakpad's crash reason string for ex on the platform
// and CPU of si: e.g. "EXCEPTION_ACCESS_VIOLATION_WRITE", "SIGSEGV /SEGV_MAPERR",
// "EXC_BAD_ACCESS / KERN_INVALID_ADDRESS". Without si it is "code / flags" in
// hex, as in Breakpad; with no exception it is "".
func CrashReason(si *SystemInfo, ex *Exception) string {
	if ex == nil {
		return ""
	}
	code, flags := ex.Code, ex.Flags
	fallback := hex32(code) + " / " + hex32(flags)
	if si == nil {
		return fallback
	}
	param := func(i int) (uint64, bool) {
		if uint32(i) < ex.NumParameters && i < len(ex.Parameters) {
			return ex.Parameters[i], true
		}
		return 0, false
	}
	switch si.Platform {
	case PlatformWin32NT, PlatformWin32Windows:
		switch code {
		case ExceptionAccessViolation, ExceptionInPageError:
			base := "EXCEPTION_ACCESS_VIOLATION"
			if code == ExceptionInPageError {
				base = "EXCEPTION_IN_PAGE_ERROR"
			}
			r := base
			if t, ok := param(0); ok {
				switch t {
				case 0:
					r = base + "_READ"
				case 1:
					r = base + "_WRITE"
				case 8:
					r = base + "_EXEC"
				}
			}
			if code == ExceptionInPageError {
				if st, ok := param(2); ok {
					r += " / " + NTStatusString(uint32(st))
				}
			}
			return r
		case ExceptionStackBufferOverrun:
			if sub, ok := param(0); ok && sub < uint64(len(fastFailNames)) && fastFailNames[sub] != "" {
				return "FAST_FAIL_" + fastFailNames[sub]
			}
			return "EXCEPTION_STACK_BUFFER_OVERRUN"
		}
		if n := winExceptionName(code); n != "" {
			return n
		}
		return fallback
	case PlatformLinux, PlatformAndroid:
		if code == 0xffffffff {
			return "DUMP_REQUESTED"
		}
		if code >= uint32(len(linuxSignals)) || code == 0 {
			return fallback
		}
		name := linuxSignals[code]
		var codes []string
		if code < uint32(len(linuxSigCodes)) {
			codes = linuxSigCodes[code]
		}
		if codes == nil {
			return name
		}
		sep := " / "
		if code == 11 {
			sep = " /" // sic: Breakpad prints "SIGSEGV /SEGV_MAPERR"
		}
		if flags < uint32(len(codes)) && codes[flags] != "" {
			return name + sep + codes[flags]
		}
		return name + sep + hex32(flags)
	case PlatformMacOSX, PlatformIOS:
		return macCrashReason(si.Arch, code, flags, fallback)
	case PlatformFuchsia:
		if n := fuchsiaException(code); n != "" {
			return n + " / " + hex32(flags)
		}
		return fallback
	case PlatformSolaris:
		// Solaris signal numbers differ from Linux; Breakpad names them without codes.
		if code < uint32(len(solarisSignals)) && solarisSignals[code] != "" {
			return solarisSignals[code]
		}
		return fallback
	}
	return fallback
}

// solarisSignals names Solaris signals, by number.
var solarisSignals = [...]string{
	1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGIOT | SIGABRT",
	7: "SIGEMT", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGBUS", 11: "SIGSEGV", 12: "SIGSYS",
	13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 16: "SIGUSR1", 17: "SIGUSR2",
	18: "SIGCLD | SIGCHLD", 19: "SIGPWR", 20: "SIGWINCH", 21: "SIGURG", 22: "SIGPOLL | SIGIO",
	23: "SIGSTOP", 24: "SIGTSTP", 25: "SIGCONT", 26: "SIGTTIN", 27: "SIGTTOU",
	28: "SIGVTALRM", 29: "SIGPROF", 30: "SIGXCPU", 31: "SIGXFSZ", 32: "SIGWAITING",
	33: "SIGLWP", 34: "SIGFREEZE", 35: "SIGTHAW", 36: "SIGCANCEL", 37: "SIGLOST",
	38: "SIGXRES", 39: "SIGJVM1", 40: "SIGJVM2",
}

//go:generate go run ./internal/ntstatusgen -o ntstatus_table.go /usr/share/mingw-w64/include/ntstatus.h

// NTStatusString names an NTSTATUS error code (0xC0000000 and up), or
// formats the value as 0x%08x, as Breakpad's NTStatusToString does for the
// third parameter of EXCEPTION_IN_PAGE_ERROR. The names come from mingw-w64's
// ntstatus.h (ntstatus_table.go); Breakpad's table, from the Windows 8.1 SDK,
// also names some codes that header lacks.
func NTStatusString(st uint32) string {
	if i, ok := slices.BinarySearch(ntStatusCodes[:], st); ok {
		return ntStatusNames[i]
	}
	return hex32(st)
}

func macCrashReason(arch Arch, code, flags uint32, fallback string) string {
	isARM := arch == ArchARM || arch == ArchARM64Old
	isX86 := arch == ArchX86 || arch == ArchAMD64
	isPPC := arch == ArchPPC
	pick := func(prefix string, names map[uint32]string) string {
		if n, ok := names[flags]; ok {
			return prefix + n
		}
		return prefix + hex32(flags)
	}
	switch code {
	case 1:
		kern := map[uint32]string{1: "KERN_INVALID_ADDRESS", 2: "KERN_PROTECTION_FAILURE", 8: "KERN_NO_ACCESS",
			9: "KERN_MEMORY_FAILURE", 10: "KERN_MEMORY_ERROR", 50: "KERN_CODESIGN_ERROR"}
		if n, ok := kern[flags]; ok {
			return "EXC_BAD_ACCESS / " + n
		}
		switch {
		case isARM:
			return pick("EXC_BAD_ACCESS / ", map[uint32]string{0x101: "EXC_ARM_DA_ALIGN", 0x102: "EXC_ARM_DA_DEBUG"})
		case isPPC:
			return pick("EXC_BAD_ACCESS / ", map[uint32]string{0x101: "EXC_PPC_VM_PROT_READ", 0x102: "EXC_PPC_BADSPACE", 0x103: "EXC_PPC_UNALIGNED"})
		case isX86:
			return pick("EXC_BAD_ACCESS / ", map[uint32]string{13: "EXC_I386_GPFLT"})
		}
		return "EXC_BAD_ACCESS / " + hex32(flags)
	case 2:
		switch {
		case isARM:
			return pick("EXC_BAD_INSTRUCTION / ", map[uint32]string{1: "EXC_ARM_UNDEFINED"})
		case isPPC:
			return pick("EXC_BAD_INSTRUCTION / ", map[uint32]string{1: "EXC_PPC_INVALID_SYSCALL", 2: "EXC_PPC_UNIPL_INST",
				3: "EXC_PPC_PRIVINST", 4: "EXC_PPC_PRIVREG", 5: "EXC_PPC_TRACE", 6: "EXC_PPC_PERFMON"})
		case isX86:
			return pick("EXC_BAD_INSTRUCTION / ", map[uint32]string{1: "EXC_I386_INVOP", 10: "EXC_I386_INVTSSFLT",
				11: "EXC_I386_SEGNPFLT", 12: "EXC_I386_STKFLT", 13: "EXC_I386_GPFLT", 17: "EXC_I386_ALIGNFLT"})
		}
		return "EXC_BAD_INSTRUCTION / " + hex32(flags)
	case 3:
		switch {
		case isPPC:
			return pick("EXC_ARITHMETIC / ", map[uint32]string{1: "EXC_PPC_OVERFLOW", 2: "EXC_PPC_ZERO_DIVIDE",
				3: "EXC_FLT_INEXACT", 4: "EXC_PPC_FLT_ZERO_DIVIDE", 5: "EXC_PPC_FLT_UNDERFLOW",
				6: "EXC_PPC_FLT_OVERFLOW", 7: "EXC_PPC_FLT_NOT_A_NUMBER", 8: "EXC_PPC_NOEMULATION",
				9: "EXC_PPC_ALTIVECASSIST"})
		case isX86:
			return pick("EXC_ARITHMETIC / ", map[uint32]string{1: "EXC_I386_DIV", 2: "EXC_I386_INTO",
				3: "EXC_I386_NOEXT", 4: "EXC_I386_EXTOVR", 5: "EXC_I386_EXTERR", 6: "EXC_I386_EMERR",
				7: "EXC_I386_BOUND", 8: "EXC_I386_SSEEXTERR"})
		}
		return "EXC_ARITHMETIC / " + hex32(flags)
	case 4:
		return "EXC_EMULATION / " + hex32(flags)
	case 5:
		return pick("EXC_SOFTWARE / ", map[uint32]string{0x00010002: "SIGABRT", 0xdeadc0de: "UNCAUGHT_NS_EXCEPTION",
			0x00000001: "EXC_PPC_TRAP", 0x00010100: "EXC_PPC_MIGRATE"})
	case 6:
		switch {
		case isARM:
			return pick("EXC_BREAKPOINT / ", map[uint32]string{0x101: "EXC_ARM_DA_ALIGN", 0x102: "EXC_ARM_DA_DEBUG", 1: "EXC_ARM_BREAKPOINT"})
		case isPPC:
			return pick("EXC_BREAKPOINT / ", map[uint32]string{1: "EXC_PPC_BREAKPOINT"})
		case isX86:
			return pick("EXC_BREAKPOINT / ", map[uint32]string{1: "EXC_I386_SGL", 2: "EXC_I386_BPT"})
		}
		return "EXC_BREAKPOINT / " + hex32(flags)
	case 7:
		return "EXC_SYSCALL / " + hex32(flags)
	case 8:
		return "EXC_MACH_SYSCALL / " + hex32(flags)
	case 9:
		return "EXC_RPC_ALERT / " + hex32(flags)
	case 11:
		return "EXC_RESOURCE / " + hex32(flags)
	case 12:
		return "EXC_GUARD / " + hex32(flags)
	case 0x43507378:
		return "Simulated Exception"
	case 0x43506e78:
		return "Uncaught NSException"
	}
	return fallback
}

// CrashAddress returns the crash address Breakpad prints: the exception
// address, or for Windows access violations and in-page errors the faulting
// data address (parameter 1); truncated to 32 bits on 32-bit CPUs.
func CrashAddress(si *SystemInfo, ex *Exception) uint64 {
	if ex == nil {
		return 0
	}
	addr := ex.Address
	if si == nil {
		return addr
	}
	if si.Platform == PlatformWin32NT || si.Platform == PlatformWin32Windows {
		if (ex.Code == ExceptionAccessViolation || ex.Code == ExceptionInPageError) &&
			ex.NumParameters >= 2 && len(ex.Parameters) >= 2 {
			addr = ex.Parameters[1]
		}
	}
	switch si.Arch {
	case ArchX86, ArchMIPS, ArchPPC, ArchSHX, ArchARM, ArchX86Win64:
		addr &= 0xffffffff
	}
	return addr
}
