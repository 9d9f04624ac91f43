package processor

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
)

// Unreadable's status says whether the file was missing or not a minidump.
func TestUnreadable(t *testing.T) {
	_, openErr := os.Open("/nonexistent/dump.dmp")
	_, formatErr := minidump.NewFile(bytes.NewReader([]byte("no minidump here, just some text")), 32)
	for _, c := range []struct {
		err  error
		want Status
	}{
		{fmt.Errorf("opening: %w", openErr), StatusMinidumpNotFound},
		{formatErr, StatusNoMinidumpHeader},
	} {
		st := Unreadable(c.err)
		if st.Status != c.want || len(st.Threads) != 0 || st.System != nil {
			t.Errorf("%v: status %q, %d threads", c.err, st.Status, len(st.Threads))
		}
		if f := st.Failures(); len(f) != 1 || f[0] != c.err {
			t.Errorf("%v: failures %v", c.err, f)
		}
	}
}

// Failures lists the broken essential streams in Breakpad's order (system
// info, exception, thread list, module list) whatever the reading order,
// then what stopped processing; Warnings holds the rest, absent streams
// left out.
func TestFailuresAndWarnings(t *testing.T) {
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	b.AddModule("/usr/bin/prog", 0x400000, 0x1000)
	b.AddThread(1, minidump.NewContext(minidump.ArchAMD64), 0x1000, make([]byte, 64))
	b.AddThreadName(1, "main")
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	// Break the module list, the thread list and the thread names by
	// making them claim more bytes than the file has.
	le := binary.LittleEndian
	n, dir := le.Uint32(data[8:]), le.Uint32(data[12:])
	for i := uint32(0); i < n; i++ {
		e := data[dir+12*i:]
		switch minidump.StreamType(le.Uint32(e)) {
		case minidump.StreamModuleList, minidump.StreamThreadList, minidump.StreamThreadNameList:
			le.PutUint32(e[4:], uint32(len(data)))
		}
	}
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	st, err := Process(f, nil, Options{})
	if !errors.Is(err, ErrNoThreadList) || st.Status != StatusNoThreadList {
		t.Fatalf("err %v, status %q", err, st.Status)
	}
	var names []string
	for _, e := range st.Failures() {
		var se *StreamError
		if errors.As(e, &se) {
			names = append(names, se.Stream.String())
		} else {
			names = append(names, e.Error())
		}
	}
	want := fmt.Sprint([]string{"thread list", "module list", ErrNoThreadList.Error()})
	if fmt.Sprint(names) != want {
		t.Errorf("failures %v, want %v", names, want)
	}
	for _, w := range st.Warnings() {
		if errors.Is(w, minidump.ErrNoStream) {
			t.Errorf("absent stream among the warnings: %v", w)
		}
		if se := (*StreamError)(nil); errors.As(w, &se) && (se.Stream == StreamThreadList || se.Stream == StreamModuleList) {
			t.Errorf("failure among the warnings: %v", w)
		}
	}
	// Processing stopped at the thread list, but the thread names were read
	// for the JSON report's x_errors.
	var names2 []string
	for _, e := range st.ReadErrors {
		names2 = append(names2, e.Stream.String())
	}
	if fmt.Sprint(names2) != fmt.Sprint([]string{"module list", "thread list", "thread names"}) {
		t.Errorf("read errors %v", names2)
	}
}

// Symbolize names an address with the symbol files the walk loaded: the
// function, file and line of amd64-fp's crash address (the gdb backtrace in
// testdata/oracle/amd64-fp.gdb.txt: fp_leaf at case_fp.c:5), nothing in a
// module whose symbols were not loaded, nothing without a supplier.
func TestSymbolize(t *testing.T) {
	f, err := minidump.Open(corpus.Testdata(t, "dumps", "amd64-fp.dmp"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := Process(f, symcompress.NewDirSupplier(corpus.Testdata(t, "symbols")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := st.Symbolize(0x4018f0)
	if len(got) == 0 || got[0].Function != "fp_leaf" || got[0].Line != 5 || !bytes.HasSuffix([]byte(got[0].File), []byte("case_fp.c")) {
		t.Errorf("Symbolize(0x4018f0) = %+v, want fp_leaf at case_fp.c:5", got)
	}
	if got := st.Symbolize(0x7f621e96f100); got != nil { // linux-gate.so: no symbols
		t.Errorf("Symbolize in linux-gate.so = %+v", got)
	}
	bare, err := Process(f, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := bare.Symbolize(0x4018f0); got != nil {
		t.Errorf("Symbolize without a supplier = %+v", got)
	}
}
