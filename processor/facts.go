package processor

// The facts of a minidump that only the JSON report shows, read with the
// rest of the dump so that no printer reads it again.

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Mozilla's stream types that package minidump does not decode.
const (
	streamMozMacBootArgs minidump.StreamType = 0x4d7a0002
	streamMozSoftErrors  minidump.StreamType = 0x4d7a0004
)

// Names of streams read only for Facts, in ReadErrors.
const (
	StreamSoftErrors  = "Mozilla soft errors"
	StreamMacBootArgs = "Mozilla macOS boot args"
	StreamHandleData  = "handle data"
	StreamCrashpad    = "Crashpad info"
)

// maxRawStream bounds what we read of one undecoded stream.
const maxRawStream = 1 << 20

// readFacts fills s.Facts from dump (except the unloaded modules' time
// stamps, read with the unloaded module list).
func (s *ProcessState) readFacts(dump *minidump.File) {
	f := &s.Facts
	if mi, err := dump.MiscInfo(); err == nil && mi.Flags1&minidump.MiscInfoProcessID != 0 {
		f.PID, f.HasPID = mi.ProcessID, true
	} else if status, err := dump.ProcStatus(); err == nil {
		f.PID, f.HasPID = procStatusPID(status)
	}
	if lsb, err := dump.LSBRelease(); err == nil {
		f.LSBRelease = lsb
	}
	if maps, err := dump.Maps(); err == nil {
		f.MemoryMapCount, f.HasMemoryMaps = countLines(maps), true
	}
	if recs, err := dump.MacCrashInfo(); err == nil && len(recs) > 0 {
		f.MacCrashInfo = recs
	}
	dir := dump.Streams()
	if data, ok := s.rawStream(dump, dir, streamMozSoftErrors, StreamSoftErrors); ok {
		f.SoftErrors = data
	}
	if data, ok := s.rawStream(dump, dir, streamMozMacBootArgs, StreamMacBootArgs); ok {
		f.MacBootArgs, f.HasMacBootArgs = macBootArgs(dump, data)
	}
	hs, err := dump.HandleData()
	if err != nil && !errors.Is(err, minidump.ErrNoStream) {
		s.noteRead(StreamHandleData, err)
	}
	if err == nil || len(hs) > 0 { // a partly readable stream lists what it can
		f.Handles, f.HasHandles = hs, true
	}
	if ls, err := dump.ProcLimits(); err == nil {
		f.ProcLimits, f.HasProcLimits = ls, true
	}
	ci, err := dump.CrashpadInfo()
	if err != nil && !errors.Is(err, minidump.ErrNoStream) {
		s.noteRead(StreamCrashpad, err)
	}
	f.Crashpad = ci
	f.LastErrors = lastErrors(dump)
}

// lastErrors reads each thread's last error value from its TEB, on
// Windows only (rust-minidump reads the same offset on every OS, but only
// Windows has a TEB there).
func lastErrors(dump *minidump.File) map[uint32]uint32 {
	si, err := dump.SystemInfo()
	if err != nil || si.Platform != minidump.PlatformWin32NT {
		return nil
	}
	threads, _ := dump.Threads()
	mem, _ := dump.Memory() // a partial list still serves
	word := 8
	if si.Arch == minidump.ArchX86 || si.Arch == minidump.ArchARM {
		word = 4
	}
	out := map[uint32]uint32{}
	for i := range threads {
		if code, ok := minidump.ThreadLastError(&threads[i], mem, word); ok {
			out[threads[i].ID] = code
		}
	}
	return out
}

// rawStream returns the bytes of the first stream of type t in dir (the
// dump's Streams); a stream out of bounds is noted in ReadErrors under name.
func (s *ProcessState) rawStream(dump *minidump.File, dir []minidump.StreamInfo, t minidump.StreamType, name string) ([]byte, bool) {
	for _, si := range dir {
		if si.Type != t {
			continue
		}
		if si.Size > maxRawStream || si.Off < 0 || si.Off+int64(si.Size) > dump.Size() {
			s.noteRead(name, fmt.Errorf("stream %s at %#x: size %d out of bounds", si.Name, si.Off, si.Size))
			return nil, false
		}
		data := make([]byte, si.Size)
		if _, err := dump.ReadAt(data, si.Off); err != nil {
			s.noteRead(name, fmt.Errorf("stream %s at %#x: %w", si.Name, si.Off, err))
			return nil, false
		}
		return data, true
	}
	return nil, false
}

// macBootArgs decodes MDRawMacBootargs: stream_type u32, then the RVA of a
// MINIDUMP_STRING (UTF-16) holding the kernel boot arguments.
func macBootArgs(dump *minidump.File, data []byte) (string, bool) {
	if len(data) < 8 {
		return "", false
	}
	rva := int64(le32(data[4:]))
	var hdr [4]byte
	if rva+4 > dump.Size() {
		return "", false
	}
	if _, err := dump.ReadAt(hdr[:], rva); err != nil {
		return "", false
	}
	n := int64(le32(hdr[:]))
	if n%2 != 0 || n > maxRawStream || rva+4+n > dump.Size() {
		return "", false
	}
	buf := make([]byte, n)
	if _, err := dump.ReadAt(buf, rva+4); err != nil {
		return "", false
	}
	u := make([]uint16, n/2)
	for i := range u {
		u[i] = uint16(buf[2*i]) | uint16(buf[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func procStatusPID(status []byte) (uint32, bool) {
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Pid:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
			return uint32(n), err == nil
		}
	}
	return 0, false
}

func countLines(b []byte) int {
	n := 0
	for more := true; more; {
		var line []byte
		line, b, more = bytes.Cut(b, []byte("\n"))
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
	}
	return n
}
