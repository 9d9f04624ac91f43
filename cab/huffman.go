package cab

import "fmt"

// huffman decodes LZX's canonical prefix codes, read from the top bit
// down: shorter codes first, equal lengths in symbol order. Codes of up to
// tableBits bits are looked up at once; longer ones code by code length.
type huffman struct {
	table   [1 << tableBits]uint16 // symbol<<5 | length, 0 for longer codes
	counts  [lzxMaxCodeLen + 1]uint16
	symbols []uint16 // ordered by code
	n       int      // symbols with a code
}

const tableBits = 10

// build makes the code of lens (0 = no code). The code must be complete,
// or, where mayBeEmpty, have no symbol at all (empty reports that).
func (h *huffman) build(lens []uint8, mayBeEmpty bool) error {
	h.counts = [lzxMaxCodeLen + 1]uint16{}
	h.n = 0
	for _, l := range lens {
		if l > lzxMaxCodeLen {
			return fmt.Errorf("code length %d", l)
		}
		h.counts[l]++
	}
	h.counts[0] = 0
	left := 1
	for l := 1; l <= lzxMaxCodeLen; l++ {
		left = left<<1 - int(h.counts[l])
		if left < 0 {
			return fmt.Errorf("over-subscribed code (%d bits)", l)
		}
		h.n += int(h.counts[l])
	}
	if h.n == 0 {
		if mayBeEmpty {
			return nil
		}
		return fmt.Errorf("no codes")
	}
	if left != 0 {
		return fmt.Errorf("incomplete code")
	}
	var next [lzxMaxCodeLen + 2]int
	for l := 1; l <= lzxMaxCodeLen; l++ {
		next[l+1] = next[l] + int(h.counts[l])
	}
	h.symbols = h.symbols[:0]
	h.symbols = append(h.symbols, make([]uint16, h.n)...)
	for s, l := range lens {
		if l != 0 {
			h.symbols[next[l]] = uint16(s)
			next[l]++
		}
	}
	h.table = [1 << tableBits]uint16{}
	code, i := 0, 0
	for l := 1; l <= tableBits; l++ {
		for k := 0; k < int(h.counts[l]); k++ {
			fill := 1 << (tableBits - l)
			e := h.symbols[i]<<5 | uint16(l)
			for j := code * fill; j < (code+1)*fill; j++ {
				h.table[j] = e
			}
			code++
			i++
		}
		code <<= 1
	}
	return nil
}

func (h *huffman) empty() bool { return h.n == 0 }

// decode reads one symbol; the caller has checked the code is not empty.
func (h *huffman) decode(b *bitReader) int {
	v := b.peek(lzxMaxCodeLen)
	if e := h.table[v>>(lzxMaxCodeLen-tableBits)]; e != 0 {
		b.n -= uint(e & 31)
		return int(e >> 5)
	}
	// Longer codes, as zlib's puff decodes: count the codes of each length.
	code, first, index := 0, 0, 0
	for l := 1; l <= lzxMaxCodeLen; l++ {
		code |= int(v>>(lzxMaxCodeLen-l)) & 1
		count := int(h.counts[l])
		if code-first < count {
			b.n -= uint(l)
			return int(h.symbols[index+code-first])
		}
		index += count
		first = (first + count) << 1
		code <<= 1
	}
	return 0 // unreachable for a complete code
}
