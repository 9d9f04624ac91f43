package retaddr

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// TestSymbolObjection: what the symbols alone say of a candidate return
// address, on each instruction set. The module's layout is a static
// program's: _init (PUBLIC) with the PLT after its code, FUNCs f and g
// (f ends where g starts), _start (the entry point), and _fini (PUBLIC),
// the last symbol, before the data. The instruction set's call offset
// and Thumb bit decide where the call lies; the dump's code decides only
// whether a call ends at g's first byte.
func TestSymbolObjection(t *testing.T) {
	const base = 0x400000
	syms := "MODULE Linux x86_64 ID1 prog\n" +
		"PUBLIC 1000 0 _init\nFUNC 2000 40 0 f\nFUNC 2040 40 0 g\nFUNC 2100 30 0 _start\nPUBLIC 9000 0 _fini\n"
	// FUNC h's line records start at 0x5000, 0x5006 (after a 5-byte call
	// and a 1-byte instruction), 0x5008 and 0x5010.
	lines := "FILE 0 h.c\nFUNC 5000 20 0 h\n5000 6 1 0\n5006 2 2 0\n5008 8 3 0\n5010 10 4 0\n"
	thumbSyms := "MODULE Linux arm ID1 prog\n" +
		"PUBLIC 1001 0 _init\nFUNC 2000 40 0 f\nFUNC 2040 40 0 g\nFUNC 2100 30 0 _start\nPUBLIC 9001 0 _fini\nPUBLIC 3001 0 thumbfn\nPUBLIC 4000 0 armfn\n"
	for _, c := range []struct {
		set  isa
		syms string
		ra   uint64 // module offset
		code []byte // ending at ra, in the dump
		want string
	}{
		{isaAMD64, syms, 0x2010, nil, ""},
		{isaAMD64, syms, 0x2040, nil, "the first byte of g"},
		{isaAMD64, syms, 0x2040, []byte{0xe8, 0, 0, 0, 0}, ""}, // f's last instruction is a call
		{isaAMD64, syms, 0x2040, []byte{0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90}, "the first byte of g"},
		{isaAMD64, syms, 0x2100, nil, "the program's entry point"},
		{isaAMD64, syms, 0x1012, nil, ""}, // after _init's call of __gmon_start__
		{isaAMD64, syms, 0x1040, nil, "past _init's code"},
		{isaAMD64, syms, 0x9008, nil, "in _fini, which calls nothing"},
		{isaAMD64, syms, 0x1a000, nil, "too far past the PUBLIC symbol _fini"},
		// Line records: an instruction boundary 1 byte before ra leaves
		// no room for a call; 2 bytes (call *%rax), 5 (call rel32) do.
		{isaAMD64, syms + lines, 0x5007, nil, "a line record starts at ra-1, too short for a call to end at ra"},
		{isaAMD64, syms + lines, 0x5008, nil, ""},
		{isaX86, syms + lines, 0x5007, nil, "a line record starts at ra-1, too short for a call to end at ra"},
		{isaX86, syms + lines, 0x5005, nil, ""},
		{isaARM64, syms + lines, 0x500a, nil, "a line record starts at ra-2, too short for a call to end at ra"},
		{isaARM64, syms + lines, 0x5010, nil, ""},
		{isaX86, syms, 0x101b, nil, ""},
		{isaX86, syms, 0x1021, nil, "past _init's code"},
		{isaX86, syms, 0x2041, nil, ""},
		{isaX86, syms, 0x2040, nil, "the first byte of g"},
		{isaX86, syms, 0x9005, nil, "in _fini, which calls nothing"},
		{isaARM64, syms, 0x1010, nil, ""},
		{isaARM64, syms, 0x1024, nil, "past _init's code"},
		{isaARM64, syms, 0x2040, nil, "the first byte of g"},
		{isaARM64, syms, 0x2100, nil, "the program's entry point"},
		{isaARM, thumbSyms, 0x1009, nil, ""},                    // Thumb _init
		{isaARM, thumbSyms, 0x1031, nil, "past _init's code"},   // Thumb bit cleared first
		{isaARM, thumbSyms, 0x2041, nil, "the first byte of g"}, // Thumb return to g's start
		{isaARM, thumbSyms, 0x2101, nil, "the program's entry point"},
		{isaARM, thumbSyms, 0x9005, nil, "in _fini, which calls nothing"},
		{isaARM, thumbSyms, 0x3011, nil, ""},
		{isaARM, thumbSyms, 0x3010, nil, "in the other instruction set than the PUBLIC symbol thumbfn"},
		{isaARM, thumbSyms, 0x4010, nil, ""},
		{isaARM, thumbSyms + lines, 0x500b, nil, ""},                                                                // Thumb: BLX Rm at 0x5008
		{isaARM, thumbSyms + lines, 0x500a, nil, "a line record starts at ra-2, too short for a call to end at ra"}, // ARM state: 4-byte calls
	} {
		set := c.set.desc()
		env := &walker.Env{
			Modules:    walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "prog", base, 0x20000)}),
			Symbols:    walkertest.NewSymbols(t, map[string]string{"prog": c.syms}),
			EntryPoint: base + 0x2100,
		}
		if c.code != nil {
			end := base + c.ra
			env.Code = &walkertest.Memory{Base: end - uint64(len(c.code)), Data: c.code}
		}
		w := walker.NewWalker(env)
		if got := symbolObjection(w, base+c.ra, set, set.mask(), (base+c.ra)&^set.thumbBit); got != c.want {
			t.Errorf("isa %d ra +%#x (code %x): %q, want %q", c.set, c.ra, c.code, got, c.want)
		}
	}
}

// TestRecordSymbolObjection: a pointer to a Thumb function whose PUBLIC
// symbol carries the Thumb bit is its first byte for a frame record's
// return address (looked up with the bit), while the scan's lookup at the
// even address reads it as lying past the symbol before.
func TestRecordSymbolObjection(t *testing.T) {
	const base = 0x400000
	syms := "MODULE Linux arm ID1 prog\nPUBLIC 1001 0 _init\nPUBLIC 3001 0 before\nPUBLIC 3021 0 thumbfn\nPUBLIC 9001 0 _fini\n"
	env := &walker.Env{
		Modules: walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "prog", base, 0x20000)}),
		Symbols: walkertest.NewSymbols(t, map[string]string{"prog": syms}),
	}
	w := walker.NewWalker(env)
	callee := &walker.Frame{Context: minidump.NewContext(minidump.ArchARM)}
	arch := Arch{WordSize: 4, CallOffset: 2}
	for _, c := range []struct {
		ra           uint64
		record, scan string
	}{
		{0x3021, "the first byte of thumbfn", ""},
		{0x3015, "", ""}, // after a call in before
	} {
		cand := NewCandidate(w, callee, arch, 0xffffffff, 0, base+c.ra)
		if got := cand.RecordSymbolObjection(); got != c.record {
			t.Errorf("ra +%#x: record %q, want %q", c.ra, got, c.record)
		}
		if got := cand.SymbolObjection(); got != c.scan {
			t.Errorf("ra +%#x: scan %q, want %q", c.ra, got, c.scan)
		}
	}
}
