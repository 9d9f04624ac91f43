package symfile

import "encoding/binary"

// stampBytes encodes a change stamp (changeStamp) for the identity's hash.
func stampBytes(ino, dev uint64, sec, nsec int64) []byte {
	var b [32]byte
	binary.LittleEndian.PutUint64(b[0:], ino)
	binary.LittleEndian.PutUint64(b[8:], dev)
	binary.LittleEndian.PutUint64(b[16:], uint64(sec))
	binary.LittleEndian.PutUint64(b[24:], uint64(nsec))
	return b[:]
}
