package atomicfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// File is a temporary file that becomes the file at its path on Commit.
type File struct {
	*os.File
	path string
	done bool
}

// Create creates the temporary file of path: a hidden name beside it
// (".NAME.RANDOM"), mode 0666 less the umask.
func Create(path string) (*File, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	for range 10000 {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) { // name the file asked for, not the temporary one
				err = &fs.PathError{Op: "create", Path: path, Err: pe.Err}
			}
			return nil, err
		}
		return &File{File: f, path: path}, nil
	}
	return nil, &fs.PathError{Op: "createtemp", Path: path, Err: fs.ErrExist}
}

// Commit closes the temporary file and renames it to its path; on an
// error the temporary file is removed.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: " + f.path + ": already committed or aborted")
	}
	f.done = true
	err := f.File.Close()
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Abort closes and removes the temporary file; the file at its path is
// left as it was. After Commit it does nothing.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.Name())
}
