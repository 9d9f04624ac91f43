package oracle

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// GDBThread is one thread of a gdb_frames.py listing
// (scripts/gen-testdata/gdb_frames.py: testdata/oracle/<name>.frames.txt).
type GDBThread struct {
	LWP     uint32
	Crashed bool
	Regs    map[string]uint64 // frame-0 registers by gdb's names
	Frames  []GDBFrame        // innermost first
}

// GDBFrame is one frame of a GDBThread.
type GDBFrame struct {
	PC       uint64
	Type     string // gdb's frame type: "normal", "inline", "sigtramp", ...
	Function string // gdb's name for the function, possibly with spaces
}

// PCs returns the PCs of the thread's frames, innermost first.
func (t *GDBThread) PCs() []uint64 {
	pcs := make([]uint64, 0, len(t.Frames))
	for _, f := range t.Frames {
		pcs = append(pcs, f.PC)
	}
	return pcs
}

// ReadGDBFrames parses the gdb_frames.py listing at path (see
// parseGDBFrames); a missing file or a malformed line fails tb.
func ReadGDBFrames(tb testing.TB, path string) []*GDBThread {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	threads, err := parseGDBFrames(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return threads
}

// parseGDBFrames parses a gdb_frames.py listing: "thread LWP [crashed]",
// then "reg NAME VALUE" and "frame N PC TYPE FUNCTION" lines; "library"
// lines and '#' comments are skipped.
func parseGDBFrames(r io.Reader) ([]*GDBThread, error) {
	var threads []*GDBThread
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") || fields[0] == "library" {
			continue
		}
		bad := fmt.Errorf("line %d: malformed line %q", line, sc.Text())
		// The number on each line: the LWP of "thread", the value of "reg",
		// the PC of "frame".
		numAt := 2
		switch fields[0] {
		case "thread":
			numAt = 1
		case "reg", "frame":
		default:
			return nil, bad
		}
		if numAt >= len(fields) {
			return nil, bad
		}
		num, err := strconv.ParseUint(fields[numAt], 0, 64)
		if err != nil {
			return nil, bad
		}
		if fields[0] == "thread" {
			threads = append(threads, &GDBThread{LWP: uint32(num), Crashed: len(fields) > 2 && fields[2] == "crashed", Regs: map[string]uint64{}})
			continue
		}
		if len(threads) == 0 {
			return nil, bad
		}
		th := threads[len(threads)-1]
		switch {
		case fields[0] == "reg" && len(fields) == 3:
			th.Regs[fields[1]] = num
		case fields[0] == "frame" && len(fields) >= 5:
			th.Frames = append(th.Frames, GDBFrame{PC: num, Type: fields[3], Function: strings.Join(fields[4:], " ")})
		default:
			return nil, bad
		}
	}
	return threads, sc.Err()
}

// MachineFrame is a frame line of minidump_stackwalk -m output:
// thread|frame|module|function|file|line|offset.
type MachineFrame struct {
	Thread, Frame int
	Module        string
	Function      string
	File, Line    string
	Offset        uint64 // hex in the output
}

// ReadMachineFrames returns the frame lines of the -m output in the file at
// path, in order. Lines that are not frame lines (OS|, CPU|, Module|, ...)
// are skipped; a frame line with a bad offset fails tb.
func ReadMachineFrames(tb testing.TB, path string) []MachineFrame {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []MachineFrame
	for _, l := range strings.Split(string(data), "\n") {
		fs := strings.Split(l, "|")
		if len(fs) != 7 {
			continue
		}
		th, err1 := strconv.Atoi(fs[0])
		fr, err2 := strconv.Atoi(fs[1])
		if err1 != nil || err2 != nil {
			continue
		}
		off, err := strconv.ParseUint(strings.TrimPrefix(fs[6], "0x"), 16, 64)
		if err != nil {
			tb.Fatalf("%s: bad offset in %q", path, l)
		}
		out = append(out, MachineFrame{Thread: th, Frame: fr, Module: fs[2], Function: fs[3], File: fs[4], Line: fs[5], Offset: off})
	}
	return out
}
