package main

import (
	"os"
	"syscall"
	"unsafe"
)

// isTTY reports whether f is a terminal: the terminal-attributes ioctl
// succeeds on it, as isatty(3) checks. A character device that is not a
// terminal, such as /dev/null, is not one.
func isTTY(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
