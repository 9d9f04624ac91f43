package symfile

import "testing"

// benchAddrs returns n addresses spread over the first 64 MiB of a module,
// the same for every build (a fixed linear congruential sequence).
func benchAddrs(n int) []uint64 {
	out := make([]uint64, n)
	x := uint64(1)
	for i := range out {
		x = x*6364136223846793005 + 1442695040888963407
		out[i] = (x >> 20) % (64 << 20)
	}
	return out
}

// BenchmarkHasFunctionAt measures the binary searches of the FUNC and
// PUBLIC arrays alone (no function is parsed), over benchFile.
func BenchmarkHasFunctionAt(b *testing.B) {
	f := benchFile(b)
	defer f.Close()
	addrs := benchAddrs(1 << 16)
	i := 0
	for b.Loop() {
		f.HasFunctionAt(addrs[i&(len(addrs)-1)])
		i++
	}
}

// BenchmarkHasCFI measures the STACK CFI INIT array's binary search, and
// the cached block of the range found, over benchFile.
func BenchmarkHasCFI(b *testing.B) {
	f := benchFile(b)
	defer f.Close()
	addrs := benchAddrs(1 << 16)
	for _, a := range addrs { // parse the blocks first: the array is what is measured
		f.HasCFI(a)
	}
	i := 0
	for b.Loop() {
		f.HasCFI(addrs[i&(len(addrs)-1)])
		i++
	}
}
