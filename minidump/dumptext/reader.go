package dumptext

import (
	"encoding/binary"
	"io"
)

var le = binary.LittleEndian

// cursor reads a dump the way Breakpad's Minidump reads its ifstream: a
// position moved by seek and read, where a short read sets a fail state that
// makes every later seek and read fail, as the stream's fail bit does.
//
// budget bounds the bytes read in all: structures may point many times at
// the same bytes (every thread at one large stack, every Crashpad module at
// one big dictionary), which Breakpad reads again each time, without limit.
// Past the budget reads fail as at the end of the file, and overBudget says
// so.
type cursor struct {
	r          io.ReaderAt
	size       int64
	pos        int64
	failed     bool
	budget     int64
	overBudget bool
}

// readBudget is the budget for a file of size bytes: far more than an
// honest dump needs (its streams, stacks printed twice, a few records
// shared), far less than a hostile one could ask for.
func readBudget(size int64) int64 { return 16*size + 64<<20 }

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
	if c.budget -= n; c.budget < 0 {
		c.failed, c.overBudget = true, true
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

// entryCost is what one decoded entry (a string pair, an annotation, a
// module, a range) is charged against the budget beyond its bytes: its
// headers and map nodes, so that the memory kept stays within a small
// multiple of the budget however small the entries.
const entryCost = 64

// charge takes n bytes of the budget for memory kept; false past it, and
// the cursor fails as at the end of the file.
func (c *cursor) charge(n int64) bool {
	if c.failed {
		return false
	}
	if c.budget -= n; c.budget < 0 {
		c.failed, c.overBudget = true, true
		return false
	}
	return true
}
