package minidump

import (
	"fmt"
)

// ExceptionARMCPSR returns the CPSR of the exception stream's ARM context:
// its T bit (0x20) tells Thumb state, which the instruction decoder needs
// and Context does not keep. Breakpad's MDRawContextARM and Windows' ARM
// CONTEXT both hold it after the flags word and the 16 core registers.
func (f *File) ExceptionARMCPSR() (uint32, error) {
	b, s, err := f.stream(StreamException)
	if err != nil {
		return 0, err
	}
	if len(b) < 168 {
		return 0, &FormatError{s.Off, s.Name, fmt.Sprintf("size %d, want 168", len(b))}
	}
	size, rva := le.Uint32(b[160:]), le.Uint32(b[164:])
	const cpsrOff = 4 + 16*4
	if size < cpsrOff+4 {
		return 0, &FormatError{int64(rva), s.Name, fmt.Sprintf("context: size %d holds no ARM CPSR", size)}
	}
	c, err := f.bytesAt(int64(rva)+cpsrOff, 4, s.Name)
	if err != nil {
		return 0, err
	}
	return le.Uint32(c), nil
}
