package main

// startStackBytes is the stack a single-dump run's goroutine reaches: the
// walk of a tiny dump's crashed thread, 9 to 25 calls deep, needs 16 KiB
// (runtime.copystack's new sizes, seen with a uprobe: 4, 8 and 16 KiB on
// null_read_av.dmp and amd64-threads.dmp). growStack asks for it once.
const startStackBytes = 16 << 10

// growStack grows the main goroutine's stack to startStackBytes while only
// main and the runtime are on it. Left to itself the stack doubles from
// the 4 KiB the initialisers leave, each time deep inside the walk, and
// every doubling copies the stack and reads the function table entry and
// stack map of every frame on it: on a tiny dump that was about 20 page
// faults of a run's 360 (docs/performance.md, "Start-up: one stack growth,
// and what is left"). The pad's frame is zeroed, so it touches only what
// the walk would touch anyway.
//
//go:noinline
func growStack() {
	var pad [startStackBytes / 2]byte
	keepStack(pad[:])
}

// keepStack keeps growStack's pad from being optimised away.
//
//go:noinline
func keepStack(b []byte) byte { return b[len(b)-1] }
