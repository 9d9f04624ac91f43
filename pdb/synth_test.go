package pdb

import (
	"bytes"
	"encoding/binary"
)

// buildMSF lays streams out in an MSF 7.0 file of 512-byte blocks: the
// superblock, the two free block maps, each stream's blocks, the
// directory and its block map. A nil stream is written as a nil stream.
func buildMSF(streams [][]byte) []byte {
	const bs = 512
	le := binary.LittleEndian
	blocks := [][]byte{nil, make([]byte, bs), make([]byte, bs)}
	add := func(b []byte) []uint32 {
		var ns []uint32
		for len(b) > 0 {
			n := min(len(b), bs)
			blk := make([]byte, bs)
			copy(blk, b[:n])
			ns = append(ns, uint32(len(blocks)))
			blocks = append(blocks, blk)
			b = b[n:]
		}
		return ns
	}
	var dir []byte
	dir = le.AppendUint32(dir, uint32(len(streams)))
	var lists [][]uint32
	for _, s := range streams {
		if s == nil {
			dir = le.AppendUint32(dir, nilStreamSize)
		} else {
			dir = le.AppendUint32(dir, uint32(len(s)))
		}
		lists = append(lists, add(s))
	}
	for _, l := range lists {
		for _, b := range l {
			dir = le.AppendUint32(dir, b)
		}
	}
	dirBlocks := add(dir)
	var bm []byte
	for _, b := range dirBlocks {
		bm = le.AppendUint32(bm, b)
	}
	bmBlock := add(bm)[0]
	sb := append([]byte{}, msfMagic...)
	sb = le.AppendUint32(sb, bs)
	sb = le.AppendUint32(sb, 1)
	sb = le.AppendUint32(sb, uint32(len(blocks)))
	sb = le.AppendUint32(sb, uint32(len(dir)))
	sb = le.AppendUint32(sb, 0)
	sb = le.AppendUint32(sb, bmBlock)
	blocks[0] = make([]byte, bs)
	copy(blocks[0], sb)
	return bytes.Join(blocks, nil)
}

// synthPDB is a small PDB: an info stream naming /names, an empty TPI, a
// DBI with one module, an empty IPI, the module's stream with one
// procedure and one line, and /names.
func synthPDB() []byte {
	le := binary.LittleEndian
	var info []byte
	info = le.AppendUint32(info, 20000404)
	info = le.AppendUint32(info, 0x5ab38077)
	info = le.AppendUint32(info, 1)
	info = append(info, bytes.Repeat([]byte{0xab}, 16)...)
	names := []byte("/names\x00")
	info = le.AppendUint32(info, uint32(len(names)))
	info = append(info, names...)
	info = le.AppendUint32(info, 1) // size
	info = le.AppendUint32(info, 1) // capacity
	info = le.AppendUint32(info, 1) // present words
	info = le.AppendUint32(info, 1)
	info = le.AppendUint32(info, 0) // deleted words
	info = le.AppendUint32(info, 0) // name offset
	info = le.AppendUint32(info, 6) // stream

	tpi := make([]byte, 56)
	le.PutUint32(tpi[4:], 56)
	le.PutUint32(tpi[8:], 0x1000)
	le.PutUint32(tpi[12:], 0x1000)

	// Module stream: signature, S_GPROC32 "f" at 1:0x10 of 0x20 bytes,
	// S_END, then a lines subsection and a checksums subsection.
	var sym []byte
	sym = le.AppendUint32(sym, 4)
	proc := make([]byte, 35)
	le.PutUint32(proc[12:], 0x20)
	le.PutUint32(proc[28:], 0x10)
	le.PutUint16(proc[32:], 1)
	proc = append(proc, 'f', 0)
	sym = le.AppendUint16(sym, uint16(2+len(proc)))
	sym = le.AppendUint16(sym, sGProc32)
	sym = append(sym, proc...)
	sym = append(sym, 2, 0, 6, 0) // S_END
	var c13 []byte
	c13 = le.AppendUint32(c13, debugSFileChecksum)
	c13 = le.AppendUint32(c13, 8)
	c13 = le.AppendUint32(c13, 1) // name offset in /names
	c13 = append(c13, 0, 0, 0, 0)
	c13 = le.AppendUint32(c13, debugSLines)
	c13 = le.AppendUint32(c13, 12+12+8)
	c13 = le.AppendUint32(c13, 0x10)
	c13 = le.AppendUint16(c13, 1)
	c13 = le.AppendUint16(c13, 0)
	c13 = le.AppendUint32(c13, 0x20)
	c13 = le.AppendUint32(c13, 0) // file checksum offset
	c13 = le.AppendUint32(c13, 1)
	c13 = le.AppendUint32(c13, 20)
	c13 = le.AppendUint32(c13, 0)
	c13 = le.AppendUint32(c13, 7|1<<31)
	mod := append(append([]byte{}, sym...), c13...)

	var mi []byte
	mi = append(mi, make([]byte, 34)...)
	mi = le.AppendUint16(mi, 5) // stream
	mi = le.AppendUint32(mi, uint32(len(sym)))
	mi = le.AppendUint32(mi, 0)
	mi = le.AppendUint32(mi, uint32(len(c13)))
	mi = append(mi, make([]byte, 16)...)
	mi = append(mi, "a.obj\x00a.obj\x00"...)
	for len(mi)%4 != 0 {
		mi = append(mi, 0)
	}
	dbi := make([]byte, 64)
	le.PutUint32(dbi, 0xffffffff)
	le.PutUint32(dbi[4:], 19990903)
	le.PutUint32(dbi[8:], 1)
	le.PutUint16(dbi[20:], NoStream) // symbol records
	le.PutUint32(dbi[24:], uint32(len(mi)))
	le.PutUint16(dbi[58:], 0x14c)
	dbi = append(dbi, mi...)

	var strs []byte
	strs = le.AppendUint32(strs, namesMagic)
	strs = le.AppendUint32(strs, 1)
	str := []byte("\x00a.c\x00")
	strs = le.AppendUint32(strs, uint32(len(str)))
	strs = append(strs, str...)
	strs = le.AppendUint32(strs, 0)

	return buildMSF([][]byte{{}, info, tpi, dbi, {}, mod, strs})
}
