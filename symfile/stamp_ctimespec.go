//go:build darwin || freebsd || netbsd

package symfile

import (
	"io/fs"
	"syscall"
)

// changeStamp is the file's inode number, device and change time
// (st_ctimespec): an edit in place moves the change time, which, unlike the
// modification time, no user can set back.
func changeStamp(st fs.FileInfo) []byte {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return stampBytes(uint64(s.Ino), uint64(s.Dev), int64(s.Ctimespec.Sec), int64(s.Ctimespec.Nsec))
	}
	return nil
}
