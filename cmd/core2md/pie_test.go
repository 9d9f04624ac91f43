package main

import (
	"debug/elf"
	"encoding/binary"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/coreconv"
)

// tinyCore builds a minimal amd64 ELF core: one NT_PRSTATUS with the given
// rip and rsp, an NT_AUXV with the given entries, and no memory.
func tinyCore(rip, rsp uint64, auxv ...uint64) []byte {
	le := binary.LittleEndian
	note := func(typ uint32, desc []byte) []byte {
		b := le.AppendUint32(nil, 5)
		b = le.AppendUint32(b, uint32(len(desc)))
		b = le.AppendUint32(b, typ)
		b = append(b, "CORE\x00\x00\x00\x00"...)
		b = append(b, desc...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	}
	prstatus := make([]byte, 336)
	le.PutUint16(prstatus[12:], 11) // pr_cursig
	le.PutUint32(prstatus[32:], 4242)
	le.PutUint64(prstatus[112+16*8:], rip)
	le.PutUint64(prstatus[112+19*8:], rsp)
	var av []byte
	for _, v := range append(auxv, 0, 0) {
		av = le.AppendUint64(av, v)
	}
	notes := append(note(coredump.NTPRStatus, prstatus), note(coredump.NTAuxv, av)...)

	h := make([]byte, 64+56)
	copy(h, "\x7fELF\x02\x01\x01")
	le.PutUint16(h[16:], 4)  // ET_CORE
	le.PutUint16(h[18:], 62) // EM_X86_64
	le.PutUint32(h[20:], 1)
	le.PutUint64(h[32:], 64) // e_phoff
	le.PutUint16(h[52:], 64)
	le.PutUint16(h[54:], 56)
	le.PutUint16(h[56:], 1)
	ph := h[64:]
	le.PutUint32(ph[0:], 4) // PT_NOTE
	le.PutUint64(ph[8:], uint64(len(h)))
	le.PutUint64(ph[32:], uint64(len(notes)))
	return append(h, notes...)
}

// TestPIEPlacedByEntry: a position-independent program given with -module
// and no base is placed where AT_ENTRY says the kernel put it.
func TestPIEPlacedByEntry(t *testing.T) {
	const path = "/bin/ls" // Debian builds its programs as PIE
	ef, err := elf.Open(path)
	if err != nil {
		t.Skipf("no %s to use as a PIE: %v", path, err)
	}
	defer ef.Close()
	if ef.Type != elf.ET_DYN || ef.Class != elf.ELFCLASS64 || ef.Machine != elf.EM_X86_64 {
		t.Skipf("%s is not an amd64 PIE", path)
	}
	var lowest uint64 = ^uint64(0)
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD && p.Vaddr < lowest {
			lowest = p.Vaddr
		}
	}
	const bias = 0x555555554000
	raw := tinyCore(bias+ef.Entry, 0x7ffc0000, 9 /* AT_ENTRY */, bias+ef.Entry)
	opt := defaultOptions
	opt.Modules = []coreconv.Module{{Path: path}}
	f := openDump(t, convertCore(t, raw, opt))
	ms, err := f.Modules()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Base != bias+lowest&^0xfff || ms[0].Name != path {
		t.Fatalf("modules %+v; want %s at %#x", ms, path, bias+lowest&^0xfff)
	}
	// The identifier is the file's build id, as readelf -n shows it.
	for _, s := range ef.Sections {
		if s.Name == ".note.gnu.build-id" {
			d, _ := s.Data()
			if id := d[16:]; ms[0].CodeID != hexString(id) {
				t.Errorf("code id %s, want build id %x", ms[0].CodeID, id)
			}
		}
	}
	ths, err := f.Threads()
	if err != nil || len(ths) != 1 || ths[0].ID != 4242 {
		t.Fatalf("threads %+v, %v", ths, err)
	}
	if ip, _ := ths[0].Context.IP(); ip != bias+ef.Entry {
		t.Errorf("rip %#x", ip)
	}
	ex, err := f.Exception()
	if err != nil || ex.Code != 11 || ex.ThreadID != 4242 {
		t.Errorf("exception %+v, %v", ex, err)
	}
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
