package oracle

// UntilForeign returns the leading frames of walk (frame addresses in the
// oracle's convention) before its first frame at an address the oracle's
// thread (want) lacks: what the walk found before it invented a frame.
// A comparison with another walker counts only that part as its due where
// the rest was reached past invented frames.
func UntilForeign(walk, want []uint64) []uint64 {
	in := make(map[uint64]bool, len(want))
	for _, pc := range want {
		in[pc] = true
	}
	for i, pc := range walk {
		if !in[pc] {
			return walk[:i]
		}
	}
	return walk
}
