// Command limits writes the worst-case inputs of docs/limits.md into a
// directory, at the sizes measured there (about 215 MB of dumps, and
// compressed symbol files inflating to 2 GiB, 2 GiB, 64 MiB and 500 MiB,
// and 500 MiB of PUBLIC records):
//
//	go run ./scripts/limits DIR
//
// Then run the tool on each with /usr/bin/time -v (scripts/limits/measure.sh).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
	"github.com/minidump-stackwalk/minidump-stackwalk/microdump"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: limits DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	write := func(name string, data []byte, err error) {
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), data, 0o644)
		}
		if err != nil {
			fail(fmt.Errorf("%s: %w", name, err))
		}
	}
	write("microdump-160k-modules.dmp", hostile.Microdump(160_000), nil)
	d, err := hostile.ModuleList(80_000)
	write("modules-80k.dmp", d, err)
	d, err = hostile.UnloadedModules(400_000)
	write("unloaded-400k.dmp", d, err)
	d, err = hostile.FrameChain(10, 100_000)
	write("threads-10x100k-frames.dmp", d, err)
	d, err = hostile.FrameChain(100, 100_000)
	write("threads-100x100k-frames.dmp", d, err)
	d, err = hostile.FrameChain(1000, 100_000) // -d: 1000 threads over one 1.6 MB stack (issue 26)
	write("threads-1000x100k-frames.dmp", d, err)
	d, err = hostile.BadModuleNames(20_000)
	write("modules-20k-bad-names.dmp", d, err)
	d, err = hostile.OverlappingMemory(100_000)
	write("memory-100k-overlapping.dmp", d, err)
	d, err = hostile.UnreadableStacks(4096)
	write("unreadable-stacks-4096.dmp", d, err)
	d, err = hostile.BombDump()
	write("bomb.dmp", d, err)
	writeBomb(filepath.Join(dir, "syms-gz"), ".gz", 2<<30)
	writeBomb(filepath.Join(dir, "syms-zst"), ".zst", 2<<30)
	writeBomb(filepath.Join(dir, "syms-gz-64m"), ".gz", 64<<20)   // within the bounds: 5.6M line records
	writeBomb(filepath.Join(dir, "syms-gz-500m"), ".gz", 500<<20) // just within the per-file bound
	// Inside the bounds (issue 26, item 5): processed, within 512 MB.
	d, err = hostile.UnloadedModules(1_100_000)
	write("unloaded-1100k.dmp", d, err)
	write("microdump-64m.dmp", hostile.MicrodumpNear(microdump.MaxSize), nil)
	if err := hostile.WritePublicStore(filepath.Join(dir, "syms-public-500m"), 500<<20); err != nil {
		fail(err)
	}
}

// writeBomb writes bomb.dmp's symbol file, decompressing to size bytes,
// compressed, under root in the store layout.
func writeBomb(root, ext string, size int64) {
	if err := hostile.WriteBombStore(root, ext, size); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "limits:", err)
	os.Exit(1)
}
