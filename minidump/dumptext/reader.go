package dumptext

import (
	"encoding/binary"
	"io"
)

var le = binary.LittleEndian

// cursor reads a dump the way Breakpad's Minidump reads its ifstream: a
// position moved by seek and read, where a short read sets a fail state that
// makes every later seek and read fail, as the stream's fail bit does.
type cursor struct {
	r      io.ReaderAt
	size   int64
	pos    int64
	failed bool
}

func (c *cursor) seek(off int64) bool {
	if c.failed || off < 0 {
		return false
	}
	c.pos = off
	return true
}

// tell is -1 once the cursor failed, as tellg is.
func (c *cursor) tell() int64 {
	if c.failed {
		return -1
	}
	return c.pos
}

// read returns the next n bytes. Never more than the file holds is
// allocated: a read past the end fails before it.
func (c *cursor) read(n int64) ([]byte, bool) {
	if c.failed || n < 0 {
		return nil, false
	}
	if n > c.size-c.pos || c.pos > c.size {
		c.failed = true
		return nil, false
	}
	b := make([]byte, n)
	if n > 0 {
		if _, err := c.r.ReadAt(b, c.pos); err != nil && err != io.EOF {
			c.failed = true
			return nil, false
		}
	}
	c.pos += n
	return b, true
}

func (c *cursor) u32() (uint32, bool) {
	b, ok := c.read(4)
	if !ok {
		return 0, false
	}
	return le.Uint32(b), true
}
