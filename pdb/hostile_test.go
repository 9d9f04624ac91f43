package pdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
)

func TestSynthPDB(t *testing.T) {
	b := synthPDB()
	f, err := NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.Info()
	if err != nil || in.Age != 1 || in.NamedStreams["/names"] != 6 {
		t.Fatalf("info %+v, %v", in, err)
	}
	d, err := f.DBI()
	if err != nil || len(d.Modules) != 1 || d.Machine != 0x14c {
		t.Fatalf("DBI %+v, %v", d, err)
	}
	mi, err := f.ModuleInfo(&d.Modules[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(mi.Procs) != 1 || mi.Procs[0].Name != "f" || mi.Procs[0].Offset != 0x10 || mi.Procs[0].Len != 0x20 {
		t.Fatalf("procs %+v", mi.Procs)
	}
	if len(mi.Lines) != 1 || mi.Lines[0] != (Line{Section: 1, Offset: 0x10, Len: 0x20, Line: 7, File: 0}) {
		t.Fatalf("lines %+v", mi.Lines)
	}
	if name, err := mi.FileName(0); name != "a.c" || err != nil {
		t.Fatalf("file %q, %v", name, err)
	}
}

// TestHostileMSF: broken layouts give a FormatError at the offset that is
// wrong, never a panic or an allocation the file does not back.
func TestHostileMSF(t *testing.T) {
	le := binary.LittleEndian
	good := synthPDB()
	type edit func([]byte) []byte
	put := func(off int, v uint32) edit {
		return func(b []byte) []byte { le.PutUint32(b[off:], v); return b }
	}
	dirOff := func(b []byte) int { // the directory's first block
		bm := le.Uint32(b[52:])
		return int(le.Uint32(b[bm*512:])) * 512
	}
	cases := []struct {
		name   string
		edit   edit
		stream int
		off    int64
	}{
		{"block size", put(32, 4000), FileStream, 32},
		{"free block map", put(36, 7), FileStream, 36},
		{"more blocks than the file", put(40, 1<<20), FileStream, 40},
		{"huge directory", put(44, 1<<30), FileStream, 44},
		{"block map outside", put(52, 1<<20), FileStream, 52},
		{"stream count", func(b []byte) []byte { le.PutUint32(b[dirOff(b):], 1<<19); return b }, DirectoryStream, 4},
		{"stream size past the blocks", func(b []byte) []byte { le.PutUint32(b[dirOff(b)+8:], 1<<30); return b }, DirectoryStream, 4},
		{"block number", func(b []byte) []byte {
			o := dirOff(b)
			n := int(le.Uint32(b[o:]))
			le.PutUint32(b[o+4+4*n:], 9999)
			return b
		}, DirectoryStream, 4 + 4*7},
		{"truncated", func(b []byte) []byte { return b[:len(b)-512] }, FileStream, 40},
	}
	for _, c := range cases {
		b := c.edit(append([]byte{}, good...))
		_, err := NewFile(bytes.NewReader(b), int64(len(b)))
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Stream != c.stream || fe.Off != c.off {
			t.Errorf("%s: got %v, want a FormatError in stream %d at %#x", c.name, err, c.stream, c.off)
		}
	}
}

// TestHostileStreams: broken streams inside a valid layout.
func TestHostileStreams(t *testing.T) {
	le := binary.LittleEndian
	// Offsets below are in the synthetic streams: info's named stream
	// count at 28+7+4, DBI's module info size at 24, the module's proc
	// record length at 4.
	cases := []struct {
		name   string
		stream int
		off    int
		v      uint32
		read   func(*File) error
		want   int64
	}{
		{"named stream strings", StreamPDB, 28, 1 << 30, func(f *File) error { _, err := f.Info(); return err }, 32},
		{"named stream buckets", StreamPDB, 28 + 4 + 7 + 4, 1 << 30, func(f *File) error { _, err := f.Info(); return err }, 47},
		{"DBI substream", StreamDBI, 24, 1 << 30, func(f *File) error { _, err := f.DBI(); return err }, 64},
		{"symbol record length", 5, 4, 0xffff, func(f *File) error {
			d, err := f.DBI()
			if err != nil {
				return err
			}
			_, err = f.ModuleInfo(&d.Modules[0])
			return err
		}, 4},
	}
	for _, c := range cases {
		b := synthPDB()
		f, err := NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		blk := f.blocks[c.stream][0]
		at := int(blk)*512 + c.off
		if c.name == "symbol record length" {
			le.PutUint16(b[at:], uint16(c.v))
		} else {
			le.PutUint32(b[at:], c.v)
		}
		err = c.read(f)
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Stream != c.stream || fe.Off != c.want {
			t.Errorf("%s: got %v, want a FormatError in stream %d at %#x", c.name, err, c.stream, c.want)
		}
	}
}

// readAll reads everything the package reads from a PDB.
func readAll(f *File) {
	f.Info()
	f.Strings()
	f.SectionHeaders()
	f.Publics()
	f.Globals()
	f.FPO()
	f.FrameData()
	tpi, _ := f.Types()
	ipi, _ := f.IDs()
	d, err := f.DBI()
	if err != nil {
		return
	}
	for i := range d.Modules {
		mi, err := f.ModuleInfo(&d.Modules[i])
		if err != nil {
			continue
		}
		for _, p := range mi.Procs {
			if tpi != nil {
				tpi.ArgList(p.Type)
			}
			for _, s := range p.Inlines {
				if ipi != nil && tpi != nil {
					ipi.FuncID(s.Inlinee, tpi)
				}
			}
		}
		for _, l := range mi.Lines {
			mi.FileName(l.File)
		}
	}
}

// FuzzPDB reads hostile PDBs whole, within the fuzzing budget.
func FuzzPDB(f *testing.F) {
	f.Add(synthPDB())
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzbudget.Default.Run(t, func() {
			pf, err := NewFile(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				return
			}
			readAll(pf)
		})
	})
}

// TestCorpusReadsWhole reads every part of ../shared's PDBs without error.
func TestCorpusReadsWhole(t *testing.T) {
	for _, path := range corpusPDBs(t) {
		f := openPDB(t, path)
		readAll(f)
		if _, err := f.FrameData(); err != nil {
			t.Error(err)
		}
	}
}
