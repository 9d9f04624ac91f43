//go:build unix

package input

import (
	"io/fs"
	"os"
	"syscall"
)

// openRead opens name for reading as os.Open does, with the same errors,
// but without registering the descriptor with Go's network poller: for a
// file, os.Open costs four fcntl calls and a failing epoll_ctl besides the
// openat, and a batch opens every dump twice (the scan's sniff, the read;
// issue 29). Reads then block their thread, as reads of a regular file
// do anyway; a pipe or device is read the same way, as a stream.
func openRead(name string) (*os.File, error) {
	for {
		fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}
