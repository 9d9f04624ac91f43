package symfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// all returns the entries, wide (a copy in the narrow layout), or nil.
func (t table[W, N]) all() []W {
	if len(t.narrow) > 0 {
		return widenAll(t.narrow)
	}
	if len(t.wide) == 0 {
		return nil
	}
	return t.wide
}

// indexReserved indexes data as Open does a file on disk (pread, arenas
// of reserved memory), in chunks of chunk bytes; wide forces the wide
// layout, as a file of 4 GiB or more takes.
func indexReserved(t *testing.T, data []byte, chunk int, wide bool) *File {
	t.Helper()
	f := &File{name: "layout.sym", data: data, unmap: func() error { return nil }}
	f.buildIndex(chunk, &diskSource{r: bytes.NewReader(data), release: func(lo, hi int) {}, wide: wide})
	t.Cleanup(func() { f.Close() })
	return f
}

// roundTrip writes f's index and loads it back.
func roundTrip(t *testing.T, f *File) *File {
	t.Helper()
	id := identity{size: uint64(len(f.data)), mtime: 1}
	var buf bytes.Buffer
	if err := writeIndex(&buf, f, "/layout.sym", id, id); err != nil {
		t.Fatal(err)
	}
	g, err := fileFromIndex(alignedCopy(buf.Bytes()), f.data, f.name, "/layout.sym", id, id, false)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// layouts reports the layout of each kind of record: n (narrow), w
// (wide) or - (none).
func layouts(f *File) string {
	l := func(wide, narrow bool) string {
		switch {
		case narrow && wide:
			return "?"
		case narrow:
			return "n"
		case wide:
			return "w"
		}
		return "-"
	}
	return l(len(f.funcs.wide) > 0, len(f.funcs.narrow) > 0) + l(len(f.pubs.wide) > 0, len(f.pubs.narrow) > 0) +
		l(len(f.cfi.wide) > 0, len(f.cfi.narrow) > 0)
}

// TestIndexLayouts: a file on disk under 4 GiB is indexed in the narrow
// layout, one forced to the wide layout (as a file of 4 GiB or more) in
// the wide one, data in memory in the wide one; all hold the same
// records, answer the same lookups, and load back from their index files
// in their own layout, answering the same again.
func TestIndexLayouts(t *testing.T) {
	inputs := map[string][]byte{"records": []byte(recordsSym), "fuzz": []byte(fuzzSym)}
	for _, p := range corpusSymFiles(t) {
		if st, err := os.Stat(p); err == nil && !compressedName(p) && st.Size() < 2<<20 && len(inputs) < 8 {
			data, _ := os.ReadFile(p)
			inputs[filepath.Base(p)] = data
		}
	}
	for name, data := range inputs {
		ref, _ := NewFile(data, "layout.sym")
		if got := layouts(ref); strings.Contains(got, "n") {
			t.Errorf("%s: in memory, layouts %s, want wide", name, got)
		}
		for _, wide := range []bool{false, true} {
			for _, chunk := range []int{64, defaultChunkSize} {
				f := indexReserved(t, data, chunk, wide)
				got, want := layouts(f), "n"
				if wide {
					want = "w"
				}
				if strings.Contains(got, "?") || strings.Contains(got, map[string]string{"n": "w", "w": "n"}[want]) {
					t.Errorf("%s (wide %v, chunk %d): layouts %s, want %s", name, wide, chunk, got, want)
				}
				if !sameIndex(f, ref) {
					t.Fatalf("%s (wide %v, chunk %d): another index than in memory", name, wide, chunk)
				}
				sameFile(t, ref, f)
				g := roundTrip(t, f)
				if layouts(g) != got {
					t.Errorf("%s (wide %v): loaded index layouts %s, built %s", name, wide, layouts(g), got)
				}
				sameFile(t, ref, g)
			}
		}
	}
}

// bigRangesSym is a file of many chunks whose records are of every kind,
// with a STACK CFI INIT range and a FUNC of cfiSize bytes in the middle.
func bigRangesSym(cfiSize uint64) []byte {
	var b bytes.Buffer
	b.WriteString("MODULE Linux x86_64 0123 big\nFILE 0 a.c\n")
	for i := range 400 {
		a := 0x1000 + i*0x100
		if i == 200 {
			fmt.Fprintf(&b, "FUNC 100000000 %x 0 huge_function\n100000000 10 7 0\n", cfiSize)
			fmt.Fprintf(&b, "STACK CFI INIT 1000000000 %x .cfa: $rsp 8 + .ra: .cfa -8 + ^\n", cfiSize)
			b.WriteString("STACK CFI 1000000010 .cfa: $rsp 16 +\n")
		}
		fmt.Fprintf(&b, "FUNC %x 80 0 f%d\n%x 40 1 0\n%x 40 2 0\n", a, i, a, a+0x40)
		fmt.Fprintf(&b, "PUBLIC %x 0 p%d\n", a+0x90, i)
		fmt.Fprintf(&b, "STACK CFI INIT %x 80 .cfa: $rsp 8 + .ra: .cfa -8 + ^\nSTACK CFI %x .cfa: $rsp 16 +\n", a, a+4)
	}
	return b.Bytes()
}

// TestIndexRangeBeyondNarrow: a STACK CFI INIT range of more than 4 GiB,
// in a chunk after others were placed in the narrow arena, switches the
// file's STACK CFI INIT records to the wide layout, exactly (the same
// records and answers as in memory, also once loaded from the index
// file); one of exactly 4 GiB fits the narrow layout, as does a FUNC of
// any size.
func TestIndexRangeBeyondNarrow(t *testing.T) {
	for _, tc := range []struct {
		size    uint64
		layouts string
	}{
		{1 << 32, "nnn"},
		{1<<32 + 1, "nnw"},
		{1 << 40, "nnw"},
	} {
		data := bigRangesSym(tc.size)
		ref, err := NewFile(data, "layout.sym")
		if err != nil {
			t.Fatal(err)
		}
		for _, chunk := range []int{512, 4096, defaultChunkSize} {
			f := indexReserved(t, data, chunk, false)
			if got := layouts(f); got != tc.layouts {
				t.Errorf("size %#x, chunk %d: layouts %s, want %s", tc.size, chunk, got, tc.layouts)
			}
			if !sameIndex(f, ref) {
				t.Fatalf("size %#x, chunk %d: another index than in memory", tc.size, chunk)
			}
			sameFile(t, ref, f)
			g := roundTrip(t, f)
			if got := layouts(g); got != tc.layouts {
				t.Errorf("size %#x, chunk %d: loaded index layouts %s, want %s", tc.size, chunk, got, tc.layouts)
			}
			sameFile(t, ref, g)
			for _, a := range []uint64{0x1000000000, 0x1000000000 + tc.size - 1, 0x1000000010} {
				if _, ok := g.CFIRules(a); !ok {
					t.Errorf("size %#x: no CFI rules at %#x", tc.size, a)
				}
			}
			if _, ok := g.CFIRules(0x1000000000 + tc.size); ok {
				t.Errorf("size %#x: CFI rules past the range", tc.size)
			}
			if s, ok := g.Lookup(0x100000000 + tc.size - 1); !ok || s.Name != "huge_function" || s.Size != tc.size {
				t.Errorf("size %#x: Lookup at the FUNC's end = %+v %v", tc.size, s, ok)
			}
		}
	}
}

// writeIndexV1 is the index writer of version 1 (before the narrow
// layout: ten sections, FUNC, PUBLIC and STACK CFI INIT records with
// 64-bit offsets), kept to test that such an index is rebuilt.
func writeIndexV1(w io.Writer, f *File, source string, srcID, dataID identity) error {
	const sections = 10
	const hdrSize = sectionTableOff + sections*16
	secs := [sections][]byte{
		asBytes(f.funcs.all()), asBytes(f.pubs.all()), asBytes(f.cfi.all()), asBytes(f.win), f.winType,
		asBytes(f.files), asBytes(f.origins), asBytes(f.info), encodeErrs(f.errs),
		encodeMeta(indexMeta{source: source, limit: f.limit, module: f.module, codeID: f.codeID}),
	}
	out := make([]byte, hdrSize)
	copy(out, indexMagic)
	binary.LittleEndian.PutUint32(out[8:], 1)
	binary.NativeEndian.PutUint32(out[12:], byteOrderMark)
	srcID.put(out[32:])
	dataID.put(out[80:])
	for i, s := range secs {
		for len(out)%8 != 0 {
			out = append(out, 0)
		}
		binary.LittleEndian.PutUint64(out[sectionTableOff+16*i:], uint64(len(out)))
		binary.LittleEndian.PutUint64(out[sectionTableOff+16*i+8:], uint64(len(s)))
		out = append(out, s...)
	}
	binary.LittleEndian.PutUint64(out[16:], uint64(len(out)))
	binary.LittleEndian.PutUint32(out[24:], crc32.Checksum(out[crcStart:], castagnoli()))
	_, err := w.Write(out)
	return err
}

// TestIndexVersion1Rebuilt: an index of version 1, as the code before the
// narrow layout wrote it for the very file, is stale: rebuilt without a
// warning, never read. Relabelled as version 2 with its CRC fixed, it is
// refused as corrupt (its section table is another size), not misread.
func TestIndexVersion1Rebuilt(t *testing.T) {
	syms, idxDir := t.TempDir(), t.TempDir()
	p := writeSym(t, syms, "m.sym", string(bigRangesSym(0x100)))
	abs, _ := filepath.Abs(p)
	fh, st, err := openRegular(p)
	if err != nil {
		t.Fatal(err)
	}
	id, err := sourceIdentity(fh, st, "")
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := NewFile(bigRangesSym(0x100), p)
	var old bytes.Buffer
	if err := writeIndexV1(&old, ref, abs, id, id); err != nil {
		t.Fatal(err)
	}
	if _, err := fileFromIndex(alignedCopy(old.Bytes()), ref.data, p, abs, id, id, false); !errors.Is(err, errStale) {
		t.Fatalf("version 1 index: %v, want stale", err)
	}
	relabelled := alignedCopy(old.Bytes())
	binary.LittleEndian.PutUint32(relabelled[8:], indexVersion)
	fixCRC(relabelled)
	if g, err := fileFromIndex(relabelled, ref.data, p, abs, id, id, false); err == nil || errors.Is(err, errStale) {
		t.Fatalf("version 1 index labelled %d: %v (File %v), want refused as corrupt", indexVersion, err, g != nil)
	}

	ip := filepath.Join(idxDir, indexKey(abs)+".idx")
	if err := os.WriteFile(ip, old.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	d := testIndexDir(t, idxDir, failOnWarn(t))
	f, _ := d.Open(p)
	if f.origin != fromBuild {
		t.Fatalf("version 1 index: origin %d, want rebuilt", f.origin)
	}
	sameFile(t, ref, f)
	f.Close()
	g, _ := d.Open(p)
	defer g.Close()
	if g.origin != fromIndex || layouts(g) != "nnn" {
		t.Fatalf("after the rebuild: origin %d, layouts %s; want the new index, narrow", g.origin, layouts(g))
	}
	sameFile(t, ref, g)
}

// TestIndexWriteAt: the index written to a file (its CRC computed while
// the sections are written, then put in the header: writeSectionsFirst)
// is byte for byte the one written to a plain writer, of both layouts.
func TestIndexWriteAt(t *testing.T) {
	data := []byte(fuzzSym)
	for _, wide := range []bool{false, true} {
		f := indexReserved(t, data, defaultChunkSize, wide)
		id := identity{size: uint64(len(data)), mtime: 1}
		var want bytes.Buffer
		if err := writeIndex(&want, f, "/layout.sym", id, id); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Create(filepath.Join(t.TempDir(), "idx"))
		if err != nil {
			t.Fatal(err)
		}
		if err := writeIndex(fh, f, "/layout.sym", id, id); err != nil {
			t.Fatal(err)
		}
		fh.Close()
		got, err := os.ReadFile(fh.Name())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("wide %v: the index written to a file differs from the plain writer's (%d and %d bytes)", wide, len(got), want.Len())
		}
		if _, err := fileFromIndex(alignedCopy(got), data, f.name, "/layout.sym", id, id, false); err != nil {
			t.Fatalf("wide %v: %v", wide, err)
		}
	}
}
