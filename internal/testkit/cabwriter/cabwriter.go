package cabwriter

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
)

// MS-CAB's sizes and CFFOLDER.typeCompress values the writer uses.
const (
	headerSize    = 36    // CFHEADER without reserve fields
	maxBlock      = 32768 // uncompressed bytes of a CFDATA block
	mszipHistory  = 32768 // MSZIP blocks share the previous 32 KiB
	compressNone  = 0
	compressMSZIP = 1
)

// Build writes a one-folder cabinet of one file, stored or (mszip) MSZIP
// compressed, with MS-CAB checksums: what symstore /compress-style tools
// put in a store, for tests and for serving stores. gcab extracts it
// (cab's TestGcab).
func Build(name string, data []byte, mszip bool) []byte {
	le := binary.LittleEndian
	var blocks [][]byte
	var sizes []int
	for off := 0; off < len(data); off += maxBlock {
		chunk := data[off:min(off+maxBlock, len(data))]
		body := chunk
		if mszip {
			var z bytes.Buffer
			z.WriteString("CK")
			w, _ := flate.NewWriterDict(&z, 6, data[max(0, off-mszipHistory):off])
			w.Write(chunk)
			w.Close()
			body = z.Bytes()
		}
		blocks = append(blocks, body)
		sizes = append(sizes, len(chunk))
	}
	filesOff := headerSize + 8
	dataOff := filesOff + 16 + len(name) + 1
	var b []byte
	b = append(b, "MSCF"...)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, 0) // cabinet size, unchecked
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, uint32(filesOff))
	b = le.AppendUint32(b, 0)
	b = append(b, 3, 1)
	b = le.AppendUint16(b, 1) // folders
	b = le.AppendUint16(b, 1) // files
	b = le.AppendUint16(b, 0) // flags
	b = le.AppendUint32(b, 0) // set id, index
	b = le.AppendUint32(b, uint32(dataOff))
	b = le.AppendUint16(b, uint16(len(blocks)))
	kind := uint16(compressNone)
	if mszip {
		kind = compressMSZIP
	}
	b = le.AppendUint16(b, kind)
	b = le.AppendUint32(b, uint32(len(data)))
	b = le.AppendUint32(b, 0)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, 0) // date, time
	b = le.AppendUint16(b, 0x20)
	b = append(b, name...)
	b = append(b, 0)
	for i, body := range blocks {
		var sz []byte
		sz = le.AppendUint16(sz, uint16(len(body)))
		sz = le.AppendUint16(sz, uint16(sizes[i]))
		b = le.AppendUint32(b, checksum(sz, checksum(body, 0)))
		b = append(b, sz...)
		b = append(b, body...)
	}
	return b
}

// checksum is MS-CAB's CFDATA checksum over b, seeded: the XOR of b's
// little-endian 32-bit words, the last partial word's bytes taken most
// significant first. A block's checksum is that of its size fields seeded
// with that of its data.
func checksum(b []byte, seed uint32) uint32 {
	for len(b) >= 4 {
		seed ^= binary.LittleEndian.Uint32(b)
		b = b[4:]
	}
	var last uint32
	for _, c := range b {
		last = last<<8 | uint32(c)
	}
	return seed ^ last
}
