//go:build linux || openbsd

package symfile

import (
	"encoding/binary"
	"io/fs"
	"syscall"
)

// changeStamp is the file's inode number, device and change time
// (st_ctim): an edit in place moves the change time, which, unlike the
// modification time, no user can set back.
func changeStamp(st fs.FileInfo) []byte {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	var b [32]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(s.Ino))
	binary.LittleEndian.PutUint64(b[8:], uint64(s.Dev))
	binary.LittleEndian.PutUint64(b[16:], uint64(s.Ctim.Sec))
	binary.LittleEndian.PutUint64(b[24:], uint64(s.Ctim.Nsec))
	return b[:]
}
