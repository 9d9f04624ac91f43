package elfsym

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/dwarfsyms"
)

// maxLineRows bounds the line table rows one file may make us hold.
const maxLineRows = 1 << 24

// Lines maps addresses to source lines, from the DWARF line tables of an
// ELF file (debug/dwarf).
type Lines struct {
	rows    []lineRow // sorted by address
	files   []string
	maxRows int // maxLineRows, or fewer for a compressed .debug_line
}

type lineRow struct {
	addr, end uint64
	file      int32 // index in files
	line      int32
}

// NewLines reads every line table of f's DWARF data. A file without DWARF
// gives an empty table.
func NewLines(f *elf.File) (*Lines, error) {
	if err := dwarfsyms.CheckCompressed(f, dwarfsyms.MaxDecompressed); err != nil {
		return nil, fmt.Errorf("elfsym: %w", err)
	}
	d, err := f.DWARF()
	if err != nil {
		if f.Section(".debug_info") == nil {
			return &Lines{}, nil
		}
		return nil, fmt.Errorf("elfsym: DWARF: %w", err)
	}
	l := &Lines{maxRows: dwarfsyms.LineRowBound(f, maxLineRows)}
	fileIndex := map[string]int32{}
	r := d.Reader()
	// Each DIE takes a byte of .debug_info at least; debug/dwarf returns
	// null entries forever at a truncated LEB128.
	maxDIEs := 0
	if s := f.Section(".debug_info"); s != nil {
		maxDIEs = int(min(s.Size, 1<<40))
	}
	for n := 0; ; n++ {
		if n > maxDIEs {
			return nil, errors.New("elfsym: DWARF: .debug_info does not advance (truncated LEB128)")
		}
		cu, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("elfsym: DWARF: %w", err)
		}
		if cu == nil {
			break
		}
		if cu.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
			continue
		}
		lr, err := d.LineReader(cu)
		r.SkipChildren()
		if err != nil {
			return nil, fmt.Errorf("elfsym: DWARF line table: %w", err)
		}
		if lr == nil {
			continue
		}
		if err := l.addTable(lr, fileIndex); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(l.rows, func(i, j int) bool { return l.rows[i].addr < l.rows[j].addr })
	return l, nil
}

// addTable adds one CU's rows: each row covers up to the next row's address
// in its sequence; rows of no size are dropped.
func (l *Lines) addTable(lr *dwarf.LineReader, fileIndex map[string]int32) error {
	var prev *dwarf.LineEntry
	for {
		var e dwarf.LineEntry
		err := lr.Next(&e)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("elfsym: DWARF line table: %w", err)
		}
		if prev != nil && e.Address > prev.Address && prev.File != nil {
			if len(l.rows) >= l.maxRows {
				return fmt.Errorf("elfsym: .debug_line: more than %d line rows", l.maxRows)
			}
			idx, ok := fileIndex[prev.File.Name]
			if !ok {
				idx = int32(len(l.files))
				fileIndex[prev.File.Name] = idx
				l.files = append(l.files, prev.File.Name)
			}
			l.rows = append(l.rows, lineRow{prev.Address, e.Address, idx, int32(prev.Line)})
		}
		if e.EndSequence {
			prev = nil
			continue
		}
		cp := e
		prev = &cp
	}
}

// Lookup returns the source file and line of the code at addr.
func (l *Lines) Lookup(addr uint64) (file string, line int, ok bool) {
	i := sort.Search(len(l.rows), func(i int) bool { return l.rows[i].addr > addr }) - 1
	if i < 0 || addr >= l.rows[i].end {
		return "", 0, false
	}
	r := l.rows[i]
	return l.files[r.file], int(r.line), true
}
