package depot

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
)

func TestDepotInterns(t *testing.T) {
	a := []triage.Frame{{Module: "m", Function: "f", Offset: "0x1", Trust: "context"}, {Module: "m", Function: "g", Offset: "0x2", Trust: "cfi"}}
	b := append([]triage.Frame(nil), a...)
	c := append([]triage.Frame(nil), a...)
	c[1].Offset = "0x3"
	d := New()
	ida, idb, idc := d.Put(a), d.Put(b), d.Put(c)
	if ida != idb {
		t.Errorf("equal stacks got ids %s and %s", ida, idb)
	}
	if ida == idc {
		t.Errorf("stacks differing in an offset share id %s", ida)
	}
	if d.Len() != 2 {
		t.Errorf("Len = %d, want 2", d.Len())
	}
	got, ok := d.Get(ida)
	if !ok || len(got) != 2 || got[1].Function != "g" {
		t.Errorf("Get(%s) = %v, %v", ida, got, ok)
	}
	// Field boundaries are part of the encoding.
	x := []triage.Frame{{Module: "ab", Function: "c"}}
	y := []triage.Frame{{Module: "a", Function: "bc"}}
	if ID(x) == ID(y) {
		t.Error("frames differing only in field boundaries share an id")
	}
	if len(ida) != 16 {
		t.Errorf("id %q: want 16 hex digits", ida)
	}
}
