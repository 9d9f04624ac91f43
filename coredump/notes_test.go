package coredump

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

type rawNote struct {
	typ  uint32
	desc []byte
}

// buildCore writes a 64-bit little-endian ELF core for machine (62 = amd64)
// with one PT_NOTE holding notes, and one PT_LOAD of data at vaddr.
func buildCore(machine uint16, notes []rawNote, vaddr uint64, data []byte) []byte {
	le := binary.LittleEndian
	var nb []byte
	for _, n := range notes {
		nb = le.AppendUint32(nb, 5)
		nb = le.AppendUint32(nb, uint32(len(n.desc)))
		nb = le.AppendUint32(nb, n.typ)
		nb = append(nb, "CORE\x00\x00\x00\x00"...)
		nb = append(nb, n.desc...)
		for len(nb)%4 != 0 {
			nb = append(nb, 0)
		}
	}
	h := make([]byte, 64+2*56)
	copy(h, "\x7fELF\x02\x01\x01")
	le.PutUint16(h[16:], 4)
	le.PutUint16(h[18:], machine)
	le.PutUint64(h[32:], 64)
	le.PutUint16(h[52:], 64)
	le.PutUint16(h[54:], 56)
	le.PutUint16(h[56:], 2)
	note, load := h[64:], h[64+56:]
	le.PutUint32(note[0:], 4)
	le.PutUint64(note[8:], uint64(len(h)))
	le.PutUint64(note[32:], uint64(len(nb)))
	le.PutUint32(load[0:], 1)
	le.PutUint32(load[4:], 6)
	le.PutUint64(load[8:], uint64(len(h)+len(nb)))
	le.PutUint64(load[16:], vaddr)
	le.PutUint64(load[32:], uint64(len(data)))
	le.PutUint64(load[40:], uint64(len(data)))
	out := append(h, nb...)
	return append(out, data...)
}

func prstatus64(pid uint32, rip, rsp uint64) []byte {
	b := make([]byte, 336)
	binary.LittleEndian.PutUint32(b[32:], pid)
	binary.LittleEndian.PutUint64(b[112+16*8:], rip)
	binary.LittleEndian.PutUint64(b[112+19*8:], rsp)
	return b
}

func ntFile(count, pageSize uint64, entries [][3]uint64, names ...string) []byte {
	le := binary.LittleEndian
	b := le.AppendUint64(nil, count)
	b = le.AppendUint64(b, pageSize)
	for _, e := range entries {
		b = le.AppendUint64(b, e[0])
		b = le.AppendUint64(b, e[1])
		b = le.AppendUint64(b, e[2])
	}
	for _, n := range names {
		b = append(b, n...)
		b = append(b, 0)
	}
	return b
}

func TestNotes(t *testing.T) {
	stack := []byte("0123456789abcdef")
	good := []rawNote{
		{NTPRStatus, prstatus64(7, 0x401000, 0x7000)},
		{NTFile, ntFile(2, 0x1000, [][3]uint64{{0x400000, 0x401000, 0}, {0x401000, 0x403000, 1}}, "/bin/a", "/bin/a")},
		{NTPRStatus, prstatus64(8, 0x402000, 0x7008)},
		{NTSigInfo, []byte{11, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0}},
	}
	core := buildCore(62, good, 0x7000, stack)
	f, err := NewFile(bytes.NewReader(core), int64(len(core)))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Threads) != 2 || f.Threads[0].PID != 7 || f.Threads[1].PID != 8 {
		t.Fatalf("threads %+v", f.Threads)
	}
	if ip, _ := f.Threads[1].Context.IP(); ip != 0x402000 {
		t.Errorf("thread 8 rip %#x", ip)
	}
	// NT_SIGINFO belongs to the NT_PRSTATUS before it, which makes thread 8
	// the crashing one.
	if f.Threads[0].SigInfo != nil || f.Threads[1].SigInfo == nil || f.Threads[1].SigInfo.Addr != 0x10 || f.CrashThread() != 1 {
		t.Errorf("siginfo: %+v %+v, crash thread %d", f.Threads[0].SigInfo, f.Threads[1].SigInfo, f.CrashThread())
	}
	if len(f.Files) != 2 || f.Files[1].Offset != 0x1000 || f.Files[1].Name != "/bin/a" {
		t.Errorf("files %+v", f.Files)
	}
	buf := make([]byte, 8)
	if err := f.ReadMemory(0x7008, buf); err != nil || string(buf) != "89abcdef" {
		t.Errorf("ReadMemory = %q, %v", buf, err)
	}
	if err := f.ReadMemory(0x700c, buf); err == nil {
		t.Error("ReadMemory past the segment succeeded")
	}
	if n := f.Readable(0x6fff, 100); n != 0 {
		t.Errorf("Readable below the segment = %d", n)
	}

	for _, tc := range []struct {
		name  string
		notes []rawNote
		want  string
	}{
		{"no threads", []rawNote{{NTAuxv, make([]byte, 16)}}, "no NT_PRSTATUS"},
		{"short prstatus", []rawNote{{NTPRStatus, make([]byte, 200)}}, "too short"},
		{"NT_FILE count too large", []rawNote{{NTPRStatus, prstatus64(1, 0, 0)}, {NTFile, ntFile(1<<40, 0x1000, nil)}}, "does not fit"},
		{"NT_FILE name unterminated", []rawNote{{NTPRStatus, prstatus64(1, 0, 0)}, {NTFile, ntFile(1, 0x1000, [][3]uint64{{1, 2, 0}})}}, "not terminated"},
		{"NT_FILE end before start", []rawNote{{NTPRStatus, prstatus64(1, 0, 0)}, {NTFile, ntFile(1, 0x1000, [][3]uint64{{5, 2, 0}}, "x")}}, "ends before"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := buildCore(62, tc.notes, 0x7000, stack)
			_, err := NewFile(bytes.NewReader(raw), int64(len(raw)))
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want a FormatError about %q", err, tc.want)
			}
		})
	}

	// A note whose size runs past its segment.
	raw := buildCore(62, good, 0x7000, stack)
	binary.LittleEndian.PutUint32(raw[64+2*56+4:], 1<<20)
	if _, err := NewFile(bytes.NewReader(raw), int64(len(raw))); err == nil || !strings.Contains(err.Error(), "runs past") {
		t.Errorf("oversized note: %v", err)
	}
}
