package crashinfo

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Exception codes the analysis recognises.
const (
	winAccessViolation = 0xc0000005
	linuxSIGSEGV       = 11
	linuxSIGBUS        = 7
	linuxSIKernel      = 0x80
	macBadAccess       = 1
	macI386GPFault     = 13
)

// nonCanonical is the amd64 hole between the lower and upper halves of the
// 48-bit address space.
func nonCanonical(a uint64) bool { return a >= 0x0000_8000_0000_0000 && a <= 0xffff_7fff_ffff_ffff }

// isGeneralProtectionFault tells the OS's way of reporting a #GP (most often
// a non-canonical address): Windows says "read of 0xffffffffffffffff", Linux
// SIGSEGV or SIGBUS from the kernel at 0, macOS EXC_I386_GPFLT at 0.
func isGeneralProtectionFault(in *Input) bool {
	ex := in.Exception
	if ex == nil {
		return false
	}
	switch in.Platform {
	case minidump.PlatformWin32NT, minidump.PlatformWin32Windows, minidump.PlatformWin32CE, minidump.PlatformWin32s:
		return ex.Code == winAccessViolation && len(ex.Parameters) > 0 && ex.Parameters[0] == 0 &&
			in.CrashAddress == ^uint64(0)
	case minidump.PlatformLinux, minidump.PlatformAndroid:
		return (ex.Code == linuxSIGSEGV || ex.Code == linuxSIGBUS) && ex.Flags == linuxSIKernel && in.CrashAddress == 0
	case minidump.PlatformMacOSX, minidump.PlatformIOS:
		return ex.Code == macBadAccess && ex.Flags == macI386GPFault && in.CrashAddress == 0
	}
	return false
}

// adjustedAddress is rust-minidump's adjusted address: the first access
// (or instruction pointer update) through a null base register gives a
// null pointer with that offset; otherwise, for an amd64 #GP, the first
// non-canonical address the instruction uses.
func adjustedAddress(in *Input, r *Result) *Adjusted {
	if !r.AccessesKnown {
		return nil
	}
	addrs := append([]Access(nil), r.Accesses...)
	if r.IPUpdate != nil {
		addrs = append(addrs, *r.IPUpdate)
	}
	for _, a := range addrs {
		if a.LikelyNull {
			return &Adjusted{Kind: NullPointer, Value: a.Address}
		}
	}
	if in.Arch != minidump.ArchAMD64 || !isGeneralProtectionFault(in) {
		return nil
	}
	for _, a := range addrs {
		if nonCanonical(a.Address) {
			return &Adjusted{Kind: NonCanonical, Value: a.Address}
		}
	}
	return nil
}
