//go:build unix

package mapfault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// truncatedMapping maps a file of two pages, then truncates it to nothing:
// reading the mapping faults (SIGBUS).
func truncatedMapping(t *testing.T) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f")
	pg := os.Getpagesize()
	if err := os.WriteFile(path, make([]byte, 2*pg), 0o644); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	data, err := syscall.Mmap(int(fh.Fd()), 0, 2*pg, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(data) })
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	return data
}

func TestRecoverTruncatedMapping(t *testing.T) {
	data := truncatedMapping(t)
	read := func() (sum int, err error) {
		defer Enable()()
		defer Recover(&err, "dump.dmp")
		for _, b := range data {
			sum += int(b)
		}
		return sum, nil
	}
	_, err := read()
	var fe *Error
	if !errors.As(err, &fe) || fe.File != "dump.dmp" || fe.Addr < uintptr(os.Getpagesize()) {
		t.Fatalf("read = %v, want a fault on dump.dmp", err)
	}
	if !strings.Contains(err.Error(), "dump.dmp: memory-mapped file changed") {
		t.Errorf("message %q does not name the file first", err)
	}
}

func TestNameCatchThrow(t *testing.T) {
	data := truncatedMapping(t)
	lookup := func() byte {
		defer Name("app.sym")
		return data[len(data)-1]
	}
	err := func() (err error) {
		defer Recover(&err, "dump.dmp")
		var g Group
		g.Go(func() { lookup() }) // a worker goroutine
		g.Go(func() {})
		g.Wait()
		return nil
	}()
	if err == nil || !strings.HasPrefix(err.Error(), "app.sym: ") {
		t.Fatalf("raised by Wait: %v, want the fault naming app.sym", err)
	}
	err = func() (err error) {
		defer Recover(&err, "dump.dmp")
		Throw(err)
		Throw(errors.New("not a fault"))
		Throw(fmt.Errorf("wrapped: %w", &Error{File: "x.sym", Addr: 1 << 20}))
		return nil
	}()
	if err == nil || !strings.HasPrefix(err.Error(), "x.sym: ") {
		t.Fatalf("Throw: %v, want the fault naming x.sym", err)
	}
}

func TestGroupCarriesOtherPanics(t *testing.T) {
	v := func() (v any) {
		defer func() { v = recover() }()
		var g Group
		g.Go(func() { panic("a bug") })
		g.Wait()
		return nil
	}()
	p, ok := v.(*Panic)
	if !ok || p.Value != "a bug" || !strings.Contains(p.Error(), "TestGroupCarriesOtherPanics") {
		t.Fatalf("recovered %#v, want a *Panic with the worker's stack", v)
	}
}

func TestOtherPanicsGoOn(t *testing.T) {
	defer func() {
		if v := recover(); v != "boom" {
			t.Fatalf("recovered %v, want boom", v)
		}
	}()
	func() {
		var err error
		defer Recover(&err, "x")
		panic("boom")
	}()
}

func TestNilDereferenceIsNoMappingFault(t *testing.T) {
	defer func() {
		v := recover()
		if v == nil || From(v) != nil {
			t.Fatalf("recovered %v: a nil dereference must not pass for a mapping fault", v)
		}
	}()
	func() {
		defer Enable()()
		var err error
		defer Recover(&err, "x")
		var p *int
		_ = *p
	}()
}
