package pdb

import "fmt"

// Info is the PDB info stream (stream 1): what ties the PDB to its
// executable, and the named streams.
type Info struct {
	Version   uint32
	Signature uint32 // a time stamp
	Age       uint32
	GUID      GUID
	// NamedStreams maps names such as "/names" and "/LinkInfo" to stream
	// numbers.
	NamedStreams map[string]uint32
}

// GUID is a Windows GUID as stored: Data1, Data2 and Data3 little-endian.
type GUID struct {
	Data1 uint32
	Data2 uint16
	Data3 uint16
	Data4 [8]byte
}

// String formats g as Breakpad's debug identifiers begin: 32 upper-case
// hex digits, Data1..3 as numbers.
func (g GUID) String() string {
	return fmt.Sprintf("%08X%04X%04X%X", g.Data1, g.Data2, g.Data3, g.Data4[:])
}

// maxNamedStreams bounds the named stream map's hash table.
const maxNamedStreams = 1 << 16

// Info reads the PDB info stream.
func (f *File) Info() (*Info, error) {
	if f.info != nil {
		return f.info, nil
	}
	b, err := f.Stream(StreamPDB)
	if err != nil {
		return nil, fmt.Errorf("PDB info stream: %w", err)
	}
	r := newReader(StreamPDB, b, 0)
	in := &Info{Version: r.u32(), Signature: r.u32(), Age: r.u32()}
	in.GUID.Data1, in.GUID.Data2, in.GUID.Data3 = r.u32(), r.u16(), r.u16()
	copy(in.GUID.Data4[:], r.bytes(8, "GUID"))
	if r.err != nil {
		return nil, r.err
	}
	if in.Version < 19990604 { // VC70 and later carry the GUID
		return nil, errAt(StreamPDB, 0, "PDB info version %d is older than VC 7.0's", in.Version)
	}
	in.NamedStreams, err = readNamedStreams(r)
	if err != nil {
		return nil, err
	}
	f.info = in
	return in, nil
}

// readNamedStreams reads the serialized hash table of named streams:
// the string buffer, then size, capacity, the present and deleted bit
// vectors and a (name offset, stream) pair per present bucket.
func readNamedStreams(r *reader) (map[string]uint32, error) {
	names := r.bytes(int(r.count(r.u32(), 1, "named stream strings")), "named stream strings")
	size, capacity := r.u32(), r.u32()
	if r.err != nil {
		return nil, r.err
	}
	if size > capacity || capacity > maxNamedStreams {
		return nil, errAt(StreamPDB, int64(r.off), "named stream table of %d entries in %d buckets", size, capacity)
	}
	present := readBitVector(r)
	readBitVector(r) // deleted buckets
	if r.err != nil {
		return nil, r.err
	}
	out := make(map[string]uint32, size)
	n := 0
	for _, bucket := range present {
		if bucket >= capacity {
			return nil, errAt(StreamPDB, int64(r.off), "named stream bucket %d of %d", bucket, capacity)
		}
		nameOff, stream := r.u32(), r.u32()
		if r.err != nil {
			return nil, r.err
		}
		name, ok := cstringAt(names, nameOff)
		if !ok {
			return nil, errAt(StreamPDB, int64(r.off-8), "named stream name at %#x outside its %d-byte buffer", nameOff, len(names))
		}
		out[name] = stream
		n++
	}
	if uint32(n) != size {
		return nil, errAt(StreamPDB, int64(r.off), "named stream table says %d entries, has %d", size, n)
	}
	return out, nil
}

// readBitVector reads a word count and the words, and returns the set
// bits' indices.
func readBitVector(r *reader) []uint32 {
	n := r.count(r.u32(), 4, "bit vector")
	var bits []uint32
	for i := 0; i < n; i++ {
		w := r.u32()
		for j := uint32(0); j < 32; j++ {
			if w&(1<<j) != 0 {
				bits = append(bits, uint32(i)*32+j)
			}
		}
		if len(bits) > maxNamedStreams {
			r.fail("bit vector with more than %d bits set", maxNamedStreams)
			return nil
		}
	}
	return bits
}

// NamedStream returns the number of the stream with the given name.
func (f *File) NamedStream(name string) (int, bool, error) {
	in, err := f.Info()
	if err != nil {
		return 0, false, err
	}
	s, ok := in.NamedStreams[name]
	return int(s), ok, nil
}
