// Package regfile opens regular files only. A FIFO, a device or a socket
// planted where a symbol file, an index or a module file is looked for
// must not block the run (opening a FIFO for reading waits for a writer)
// nor be read: the file is opened without blocking (O_NONBLOCK where the
// system has it) and refused unless fstat says it is a regular file. There
// is no window between the check and the read: the check that counts is
// of the open file.
package regfile

import (
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by Open's error for a file that is not regular.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading when it is a regular file (a symbolic link
// to one is followed) and returns it with its FileInfo.
func Open(path string) (*os.File, fs.FileInfo, error) {
	// A first look spares opening a device, whose open may act.
	if st, err := os.Stat(path); err != nil {
		return nil, nil, err
	} else if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	fh, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := fh.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	if err != nil {
		fh.Close()
		return nil, nil, err
	}
	return fh, st, nil
}

// ELF is elf.Open for regular files only; close releases the file.
func ELF(path string) (ef *elf.File, close func() error, err error) {
	fh, _, err := Open(path)
	if err != nil {
		return nil, nil, err
	}
	if ef, err = elf.NewFile(fh); err != nil {
		fh.Close()
		return nil, nil, err
	}
	return ef, fh.Close, nil
}
