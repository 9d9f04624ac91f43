package minidump

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// facilityVisualCpp is FACILITY_VISUALCPP, the one HRESULT facility
// rust-minidump names in last-error values (MSVC's delay-load failures).
const facilityVisualCpp = 109

// WindowsErrorString names a thread's last error value (GetLastError) as
// rust-minidump does: a Win32 error name (winerror_table.go, from mingw-w64's
// winerror.h), else an NTSTATUS name, else "FACILITY_VISUALCPP / ERROR_..."
// for such an HRESULT, else "unknown 0x%08x". Our NTSTATUS table holds the
// error codes (0xC…) only; rust-minidump also names warning and
// informational ones.
func WindowsErrorString(code uint32) string {
	if i, ok := slices.BinarySearch(winErrorCodes[:], code); ok {
		return winErrorNames[i]
	}
	if i, ok := slices.BinarySearch(ntStatusCodes[:], code); ok {
		return ntStatusNames[i]
	}
	if code&0xf0000000 != 0 && (code&0x0fff0000)>>16 == facilityVisualCpp {
		if i, ok := slices.BinarySearch(winErrorCodes[:], code&0xffff); ok {
			return "FACILITY_VISUALCPP / " + winErrorNames[i]
		}
	}
	return fmt.Sprintf("unknown 0x%08x", code)
}

// ThreadLastError reads a Windows thread's last error value from its TEB
// in the captured memory: LastErrorValue lies 13 pointers into the TEB on
// x86 (0x34) and amd64 (0x68) alike. ok is false when the TEB is not
// captured.
func ThreadLastError(t *Thread, mem *MemoryList, wordSize int) (code uint32, ok bool) {
	if t == nil || t.TEB == 0 || (wordSize != 4 && wordSize != 8) {
		return 0, false
	}
	addr := t.TEB + uint64(13*wordSize)
	if addr < t.TEB {
		return 0, false
	}
	var b [4]byte
	if mem.ReadMemory(addr, b[:]) != nil {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b[:]), true
}
