package minidump_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// mozDump returns a dump holding stream t with data, the data's file
// offset, and the dump's bytes (for patching).
func mozDump(t *testing.T, st minidump.StreamType, data []byte) (*minidump.File, int64, []byte) {
	t.Helper()
	b, err := synth.New(minidump.ArchAMD64, synth.Linux).AddStream(uint32(st), data).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	f, err := minidump.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Streams() {
		if s.Type == st {
			return f, s.Off, b
		}
	}
	t.Fatalf("stream %#x not in the dump", uint32(st))
	return nil, 0, nil
}

func TestMozSoftErrors(t *testing.T) {
	text := []byte(`[{"kind":"x"}]` + "\x00\x00")
	f, _, _ := mozDump(t, minidump.StreamMozSoftErrors, text)
	got, err := f.MozSoftErrors()
	if err != nil || !bytes.Equal(got, text) {
		t.Errorf("MozSoftErrors = %q, %v; want %q", got, err, text)
	}
	f, _, _ = mozDump(t, minidump.StreamMozSoftErrors, nil)
	if got, err := f.MozSoftErrors(); err != nil || got == nil || len(got) != 0 {
		t.Errorf("MozSoftErrors of an empty stream = %q (nil %v), %v; want present and empty", got, got == nil, err)
	}
	if _, err := f.MacBootArgs(); !errors.Is(err, minidump.ErrNoStream) {
		t.Errorf("MacBootArgs of a dump without the stream: %v, want ErrNoStream", err)
	}
}

func TestMacBootArgs(t *testing.T) {
	const args = "-v keepsyms=1 ünïcode"
	u := utf16.Encode([]rune(args))
	// MDRawMacBootargs (stream_type, RVA of the string), then the
	// MINIDUMP_STRING itself inside the stream, at RVA stream+8.
	data := binary.LittleEndian.AppendUint32(nil, uint32(minidump.StreamMozMacOSBootargs))
	data = binary.LittleEndian.AppendUint32(data, 0) // patched below
	data = binary.LittleEndian.AppendUint32(data, uint32(2*len(u)))
	for _, c := range u {
		data = binary.LittleEndian.AppendUint16(data, c)
	}
	_, off, b := mozDump(t, minidump.StreamMozMacOSBootargs, data)
	open := func(rva uint32) *minidump.File {
		binary.LittleEndian.PutUint32(b[off+4:], rva)
		f, err := minidump.NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if got, err := open(uint32(off + 8)).MacBootArgs(); err != nil || got != args {
		t.Errorf("MacBootArgs = %q, %v; want %q", got, err, args)
	}
	// An RVA past the end of the file is a FormatError naming its offset.
	_, err := open(uint32(len(b) + 100)).MacBootArgs()
	var fe *minidump.FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "offset 0x") {
		t.Errorf("MacBootArgs with the string past the end: %v, want a FormatError with the offset", err)
	}
	// An odd string length is no UTF-16 string.
	binary.LittleEndian.PutUint32(b[off+8:], 3)
	if _, err := open(uint32(off + 8)).MacBootArgs(); !errors.As(err, &fe) || fe.Off != off+8 {
		t.Errorf("MacBootArgs with an odd length: %v, want a FormatError at %#x", err, off+8)
	}
}
