package dumpsyms

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// openDebugLink opens the debug file Google's dump_syms would read for
// path with debug directories dirs: none when path has DWARF data.
func openDebugLink(t *testing.T, f *elf.File, path string, dirs []string) *elf.File {
	t.Helper()
	if len(dirs) == 0 || f.Section(".debug_info") != nil {
		return nil
	}
	p, err := FindDebugLink(f, path, dirs)
	if err != nil {
		t.Fatal(err)
	}
	debug, err := elf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	return debug
}

// dwarfQuirks are the places where, by design, our default output differs
// from Google's dump_syms (docs/native-debuginfo.md, "FUNC, line and
// INLINE records"), found with debug/dwarf independently of our reader:
//
//   - rangesFuncs: the range addresses of DW_TAG_subprogram DIEs with
//     DW_AT_ranges in DWARF 5 units of a file without .debug_addr. Google's
//     dump_syms cannot read such range lists and drops the function (GCC's
//     hot/cold split functions); we write its FUNC records, and the PUBLIC
//     record at its address goes;
//   - droppedInlines: DW_TAG_inlined_subroutine DIEs, keyed "call line,
//     first address", that Google's dump_syms -d drops: those under a
//     DW_TAG_lexical_block (the npm build predates Breakpad's lexical block
//     support), those with DW_AT_ranges it cannot read (as above), and
//     the inlines under those. We write them.
type dwarfQuirks struct {
	rangesFuncs    map[uint64]bool // relative to the load base
	droppedInlines map[string]bool
}

func (q *dwarfQuirks) any() bool {
	return q != nil && (len(q.rangesFuncs) > 0 || len(q.droppedInlines) > 0)
}

func dwarfQuirksOf(t *testing.T, path string, dirs []string) *dwarfQuirks {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	base := loadInfoOf(f).base
	df := f
	if debug := openDebugLink(t, f, path, dirs); debug != nil {
		defer debug.Close()
		df = debug
	}
	q := &dwarfQuirks{rangesFuncs: map[uint64]bool{}, droppedInlines: map[string]bool{}}
	if df.Section(".debug_info") == nil {
		return q
	}
	d, err := df.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	info, err := df.Section(".debug_info").Data()
	if err != nil {
		t.Fatal(err)
	}
	noAddr := df.Section(".debug_addr") == nil
	versionAt := unitVersionFunc(info, df.ByteOrder)
	r := d.Reader()
	// From the unit down to the DIE being read: the tags, and whether
	// Google's dump_syms drops the DIE's inlined calls.
	type level struct {
		tag     dwarf.Tag
		dropped bool
	}
	var stack []level
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			break
		}
		if e.Tag == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		unreadable := e.Val(dwarf.AttrRanges) != nil && noAddr && versionAt(e.Offset) >= 5
		dropped := len(stack) > 0 && stack[len(stack)-1].dropped
		switch e.Tag {
		case dwarf.TagSubprogram:
			dropped = false
			if unreadable {
				rs, _ := d.Ranges(e)
				for _, r := range rs {
					q.rangesFuncs[r[0]-base] = true
				}
			}
		case dwarf.TagLexDwarfBlock:
			dropped = true
		case dwarf.TagInlinedSubroutine:
			dropped = dropped || unreadable
			rs, _ := d.Ranges(e)
			line, _ := e.Val(dwarf.AttrCallLine).(int64)
			if dropped && len(rs) > 0 {
				q.droppedInlines[fmt.Sprintf("%d %x", line, rs[0][0]-base)] = true
			}
		}
		if e.Children {
			stack = append(stack, level{e.Tag, dropped})
		}
	}
	return q
}

// unitVersionFunc gives the DWARF version of the unit holding a DIE.
func unitVersionFunc(info []byte, order binary.ByteOrder) func(dwarf.Offset) int {
	type unit struct {
		end     uint64
		version int
	}
	var units []unit
	for off := uint64(0); off+6 < uint64(len(info)); {
		length, hdr := uint64(order.Uint32(info[off:])), uint64(4)
		if length == 0xffffffff {
			length, hdr = order.Uint64(info[off+4:]), 12
		}
		units = append(units, unit{off + hdr + length, int(order.Uint16(info[off+hdr:]))})
		off += hdr + length
	}
	return func(o dwarf.Offset) int {
		for _, u := range units {
			if uint64(o) < u.end {
				return u.version
			}
		}
		return 0
	}
}

// dwarfAdditions counts what ours has that Google's has not.
type dwarfAdditions struct {
	funcs, inlines, publicsReplaced int
}

func (a dwarfAdditions) String() string {
	return fmt.Sprintf("DWARF: %d FUNC records of DW_AT_ranges functions (%d PUBLIC replaced), %d INLINE records Google drops",
		a.funcs, a.publicsReplaced, a.inlines)
}

// symFunc is a FUNC record with its INLINE and line records, file and
// origin ids replaced by names.
type symFunc struct {
	addr    uint64
	head    string
	inlines []symInline
	lines   []string
}

type symInline struct {
	key  string // "call line, first address", as dwarfQuirks keys them
	text string
}

type symText struct {
	header  []string
	funcs   []symFunc
	publics map[uint64]string
}

func parseSymText(t *testing.T, name string, lines []string) *symText {
	files, origins := map[string]string{}, map[string]string{}
	s := &symText{publics: map[uint64]string{}}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "MODULE", "INFO":
			s.header = append(s.header, l)
		case "FILE":
			files[f[1]] = strings.SplitN(l, " ", 3)[2]
		case "INLINE_ORIGIN":
			origins[f[1]] = strings.SplitN(l, " ", 3)[2]
		case "FUNC":
			g := f[1:]
			if g[0] == "m" {
				g = g[1:]
			}
			addr, _ := strconv.ParseUint(g[0], 16, 64)
			s.funcs = append(s.funcs, symFunc{addr: addr, head: l})
		case "PUBLIC":
			g := f[1:]
			if g[0] == "m" {
				g = g[1:]
			}
			addr, _ := strconv.ParseUint(g[0], 16, 64)
			s.publics[addr] = l
		case "INLINE":
			fn := &s.funcs[len(s.funcs)-1]
			fn.inlines = append(fn.inlines, symInline{key: f[2] + " " + f[5],
				text: fmt.Sprintf("%s %s %s %q %s", f[1], f[2], files[f[3]], origins[f[4]], strings.Join(f[5:], " "))})
		default:
			if len(s.funcs) == 0 || len(f) != 4 {
				t.Fatalf("%s: unexpected record %q", name, l)
			}
			fn := &s.funcs[len(s.funcs)-1]
			fn.lines = append(fn.lines, f[0]+" "+f[1]+" "+f[2]+" "+files[f[3]])
		}
	}
	return s
}

// compareDWARF checks our records outside STACK CFI against Google's: the
// same, but for the differences dwarfQuirks names.
func compareDWARF(t *testing.T, name string, google, ours []string, q *dwarfQuirks) dwarfAdditions {
	t.Helper()
	g, o := parseSymText(t, name+" (google)", google), parseSymText(t, name+" (ours)", ours)
	var add dwarfAdditions
	if !slices.Equal(g.header, o.header) {
		t.Errorf("%s: MODULE/INFO differ: google %q, ours %q", name, g.header, o.header)
	}
	j := 0
	for _, gf := range g.funcs {
		for j < len(o.funcs) && o.funcs[j].head != gf.head && q.rangesFuncs[o.funcs[j].addr] {
			add.funcs++
			j++
		}
		if j == len(o.funcs) || o.funcs[j].head != gf.head {
			t.Errorf("%s: google's %q missing from ours (or out of order)", name, gf.head)
			return add
		}
		of := o.funcs[j]
		j++
		if !slices.Equal(gf.lines, of.lines) {
			t.Errorf("%s: lines of %q differ:\ngoogle %q\n  ours %q", name, gf.head, gf.lines, of.lines)
		}
		k := 0
		for _, gi := range gf.inlines {
			for k < len(of.inlines) && of.inlines[k].text != gi.text && q.droppedInlines[of.inlines[k].key] {
				add.inlines++
				k++
			}
			if k == len(of.inlines) || of.inlines[k].text != gi.text {
				t.Errorf("%s: %q: google's INLINE %s missing from ours", name, gf.head, gi.text)
				break
			}
			k++
		}
		for ; k < len(of.inlines); k++ {
			if !q.droppedInlines[of.inlines[k].key] {
				t.Errorf("%s: %q: INLINE %s not in google's, not one it drops", name, gf.head, of.inlines[k].text)
			}
			add.inlines++
		}
	}
	for ; j < len(o.funcs); j++ {
		if !q.rangesFuncs[o.funcs[j].addr] {
			t.Errorf("%s: our %q not in google's, not a DW_AT_ranges function", name, o.funcs[j].head)
		}
		add.funcs++
	}
	for addr, p := range g.publics {
		op, ok := o.publics[addr]
		switch {
		case !ok && q.rangesFuncs[addr]:
			add.publicsReplaced++
		case op != p:
			t.Errorf("%s: google %q, ours %q", name, p, op)
		}
	}
	for addr, p := range o.publics {
		if _, ok := g.publics[addr]; !ok {
			t.Errorf("%s: our %q not in google's", name, p)
		}
	}
	return add
}
