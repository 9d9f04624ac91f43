package symfile

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
	"unsafe"
)

// fuzzSym has a record of every kind the index holds.
const fuzzSym = `MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 m
INFO CODE_ID 0123456789ABCDEF m
FILE 0 a.c
FILE 1 b.h
INLINE_ORIGIN 0 inl
FUNC 10 20 0 f
10 4 1 0
INLINE 0 2 1 0 14 8
14 8 7 1
1c 14 3 0
FUNC m 40 10 4 g
40 10 9 0
PUBLIC 30 0 p
PUBLIC 60 8 q
STACK CFI INIT 10 20 .cfa: $rsp 8 + .ra: .cfa -8 + ^
STACK CFI 11 .cfa: $rsp 16 +
STACK CFI 18 $rbp: .cfa -16 + ^
STACK CFI INIT 40 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^
STACK WIN 4 10 20 1 0 0 0 0 0 1 $eip 4 + ^ =
STACK WIN 0 12 8 1 0 0 0 0 0 0 1
bad line
`

// alignedCopy copies b into 8-byte aligned memory, as a mapping is.
func alignedCopy(b []byte) []byte {
	words := make([]uint64, (len(b)+7)/8)
	out := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)[:len(b)]
	copy(out, b)
	return out
}

// fixCRC rewrites the CRC of an index file so it matches its contents.
func fixCRC(idx []byte) {
	if len(idx) >= indexHeaderSize {
		binary.LittleEndian.PutUint32(idx[24:], crc32.Checksum(idx[crcStart:], castagnoli()))
	}
}

// FuzzIndexFile loads mutated index files, of both layouts (the wide one
// of data in memory, the narrow one of a file on disk: indexlayout.go).
// One with its CRC left as the mutation made it must be refused or, when
// accepted, answer exactly as the symbol file indexed in memory; one whose
// CRC was recomputed (a forged index) must be refused or answer without
// failing.
func FuzzIndexFile(f *testing.F) {
	data := []byte(fuzzSym)
	ref, _ := NewFile(data, "fuzz.sym")
	onDisk := &File{name: "fuzz.sym", data: data, unmap: func() error { return nil }}
	onDisk.buildIndex(defaultChunkSize, &diskSource{r: bytes.NewReader(data), release: func(lo, hi int) {}})
	defer onDisk.Close()
	if onDisk.funcs.narrow == nil || onDisk.pubs.narrow == nil || onDisk.cfi.narrow == nil {
		f.Fatal("the file on disk is not indexed in the narrow layout")
	}
	id := identity{size: uint64(len(data)), mtime: 1}
	for _, built := range []*File{ref, onDisk} {
		var buf bytes.Buffer
		if err := writeIndex(&buf, built, "/fuzz.sym", id, id); err != nil {
			f.Fatal(err)
		}
		good := buf.Bytes()
		f.Add(good, false)
		f.Add(good, true)
		f.Add(good[:len(good)/2], false)
	}
	probes := probeAddrs(ref)
	f.Fuzz(func(t *testing.T, idx []byte, forge bool) {
		idx = alignedCopy(idx)
		if forge {
			fixCRC(idx)
		}
		g, err := fileFromIndex(idx, data, "fuzz.sym", "/fuzz.sym", id, id, false)
		if err != nil {
			return
		}
		if !forge {
			sameFile(t, ref, g)
			return
		}
		g.Err()
		g.Errors()
		g.Info("CODE_ID")
		for _, a := range probes {
			g.Lookup(a)
			g.CFIRules(a)
			g.StackWin(a)
			g.HasFunctionAt(a)
		}
	})
}
