package symfile

import "unsafe"

// HeapBytes estimates the memory the File holds besides its data (Size):
// the index built by Open, and the functions parsed by lookups so far,
// which grow as lookups touch more functions. A cache that bounds its
// memory adds it to Size.
func (f *File) HeapBytes() int64 {
	n := f.funcs.heapBytes() + f.pubs.heapBytes() + f.cfi.heapBytes() +
		int64(cap(f.win))*int64(unsafe.Sizeof(winEntry{})) + int64(cap(f.winType)) +
		int64(cap(f.info))*8 +
		int64(cap(f.files)+cap(f.origins))*int64(unsafe.Sizeof(idEntry{}))
	f.mu.RLock()
	n += f.parsedBytes
	f.mu.RUnlock()
	return n
}

// functionBytes estimates the memory of a parsed function.
func functionBytes(fn *function) int64 {
	n := int64(unsafe.Sizeof(*fn)) + int64(len(fn.name)) +
		int64(cap(fn.lines))*int64(unsafe.Sizeof(span{})) +
		int64(cap(fn.lineRecs))*int64(unsafe.Sizeof(lineRecord{})) +
		int64(cap(fn.inlineRec))*int64(unsafe.Sizeof(inlineRecord{}))
	for _, r := range fn.inlineRec {
		n += int64(cap(r.ranges)) * 16
	}
	// The inline tree: one node per inline record, and the map entry.
	n += int64(len(fn.inlineRec))*int64(unsafe.Sizeof(cmNode{})+8) + 64
	return n
}
