package minidump

import (
	"errors"
	"io"
)

// ReadAt reads len(p) bytes of the file at offset off, as io.ReaderAt does:
// near the end of the file it reads what there is and returns io.EOF. It
// serves tools that print a dump's raw structures field by field (package
// dumptext), where the decoded accessors keep only what a walker needs.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("minidump: ReadAt: negative offset")
	}
	if off >= f.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := len(p)
	short := false
	if int64(n) > f.size-off {
		n = int(f.size - off)
		short = true
	}
	if err := f.readAt(p[:n], off, "file"); err != nil {
		return 0, err
	}
	if short {
		return n, io.EOF
	}
	return n, nil
}
