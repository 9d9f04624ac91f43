package report

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
)

// minidumpString is a MINIDUMP_STRING: a byte length, UTF-16, a NUL.
func minidumpString(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 4+2*len(u)+2)
	binary.LittleEndian.PutUint32(b, uint32(2*len(u)))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[4+2*i:], c)
	}
	return b
}

// handleStream is a MINIDUMP_HANDLE_DATA_STREAM with 32-byte
// MINIDUMP_HANDLE_DESCRIPTORs (the layout of dbghelp.h), names after the
// descriptors; rva is where the stream will lie in the file.
func handleStream(rva uint32, handles []minidump.Handle) []byte {
	const hdr, entry = 16, 32
	b := make([]byte, hdr+entry*len(handles))
	binary.LittleEndian.PutUint32(b[0:], hdr)
	binary.LittleEndian.PutUint32(b[4:], entry)
	binary.LittleEndian.PutUint32(b[8:], uint32(len(handles)))
	for i, h := range handles {
		e := hdr + entry*i
		binary.LittleEndian.PutUint64(b[e:], h.Handle)
		for off, name := range map[int]string{8: h.TypeName, 12: h.ObjectName} {
			if name == "" {
				continue
			}
			binary.LittleEndian.PutUint32(b[e+off:], rva+uint32(len(b)))
			b = append(b, minidumpString(name)...)
			for len(b)%4 != 0 {
				b = append(b, 0)
			}
		}
	}
	return b
}

// TestJSONHandlesAndLimits: "handles" lists each descriptor (a missing
// name is null) and "proc_limits" the resources of /proc/self/limits, in
// rust-minidump's shapes (process_state.rs: handle, type_name,
// object_name; limits[].name, soft, hard, unit with "unlimited").
func TestJSONHandlesAndLimits(t *testing.T) {
	handles := []minidump.Handle{
		{Handle: 4, TypeName: "File", ObjectName: `\Device\HarddiskVolume3\Windows`},
		{Handle: 8, TypeName: "Event"},
	}
	limits := "Limit                     Soft Limit           Hard Limit           Units     \n" +
		"Max stack size            8388608              unlimited            bytes     \n"
	build := func(rva uint32) (*synth.Builder, []byte) {
		b := synth.New(minidump.ArchAMD64, synth.Linux)
		b.AddStream(uint32(minidump.StreamHandleData), handleStream(rva, handles))
		b.AddStream(0x4d7a0003, []byte(limits))
		raw, err := b.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		return b, raw
	}
	b, _ := build(0)
	rva, _, ok := b.StreamLocation(uint32(minidump.StreamHandleData))
	if !ok {
		t.Fatal("handle stream not placed")
	}
	_, raw := build(rva)
	f, err := minidump.NewFile(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteJSON(&out, BuildJSON(processed(t, f), JSONOptions{}), false); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Handles    json.RawMessage `json:"handles"`
		ProcLimits json.RawMessage `json:"proc_limits"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	wantHandles := `[{"handle":4,"object_name":"\\Device\\HarddiskVolume3\\Windows","type_name":"File"},` +
		`{"handle":8,"object_name":null,"type_name":"Event"}]`
	if d := cmp.Diff(wantHandles, string(got.Handles)); d != "" {
		t.Errorf("handles (-want +got):\n%s", d)
	}
	wantLimits := `{"limits":[{"hard":"unlimited","name":"Max stack size","soft":8388608,"unit":"bytes"}]}`
	if d := cmp.Diff(wantLimits, string(got.ProcLimits)); d != "" {
		t.Errorf("proc_limits (-want +got):\n%s", d)
	}
}

// processed walks f without symbols, as the command does.
func processed(t *testing.T, f *minidump.File) *processor.ProcessState {
	t.Helper()
	st, _ := processor.Process(f, nil, processor.Options{})
	if st == nil {
		t.Fatal("no state")
	}
	return st
}
