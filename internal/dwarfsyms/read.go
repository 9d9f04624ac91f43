package dwarfsyms

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// NameOmitted is the name of a function or inline origin DWARF gives none.
const NameOmitted = "<name omitted>"

// Range is a run of addresses.
type Range struct{ Addr, Size uint64 }

// Func is a function: a DW_TAG_subprogram whose ranges cover some code.
type Func struct {
	Name    string
	Ranges  []Range // by address (DW_AT_ranges sorted, as Breakpad does); the first is the function's address
	Lines   []Line  // the unit's lines clipped to Ranges, by address
	Inlines []*Inline
}

// Addr is the function's address: its first range's.
func (f *Func) Addr() uint64 { return f.Ranges[0].Addr }

// Inline is an inlined call (DW_TAG_inlined_subroutine).
type Inline struct {
	Origin   *Origin
	Ranges   []Range
	CallLine int32
	CallFile int // index in Data.Files; -1 for none
	Level    int // nesting depth, 0 for a call in the function itself
	Children []*Inline
}

// Origin is the function an Inline is an instance of.
type Origin struct{ Name string }

// Options select what Read reads.
type Options struct {
	Inlines bool // DW_TAG_inlined_subroutine trees (dump_syms -d)
	// NoInterCURefs drops DW_AT_specification references to earlier units
	// (dump_syms -r).
	NoInterCURefs bool
	// BreakpadRanges reads DW_AT_ranges as Google's dump_syms does: in a
	// DWARF 5 unit of a file without a .debug_addr section, not at all, so
	// a function or inlined call with DW_AT_ranges (GCC's hot/cold split
	// functions) is dropped.
	BreakpadRanges bool
	// NoLexicalBlocks leaves out the inlined calls inside
	// DW_TAG_lexical_block DIEs, as Google's dump_syms did before Breakpad
	// commit 22f54f19 (January 2024), the npm minidump@0.26.0 build among
	// them.
	NoLexicalBlocks bool
	Limits          Limits
}

// Limits bound what one file may make Read hold; zero fields take the
// defaults.
type Limits struct {
	MaxLines   int // line rows, file-wide (default 1<<25; Read lowers it for a compressed .debug_line, LineRowBound)
	MaxFuncs   int // functions, file-wide (default 1<<22)
	MaxInlines int // inlined calls, file-wide (default 1<<24)
	MaxDepth   int // DIE nesting (default 512)
}

func (l *Limits) setDefaults() {
	if l.MaxLines <= 0 {
		l.MaxLines = 1 << 25
	}
	if l.MaxFuncs <= 0 {
		l.MaxFuncs = 1 << 22
	}
	if l.MaxInlines <= 0 {
		l.MaxInlines = 1 << 24
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = 512
	}
}

// Data is what Read found.
type Data struct {
	Files []string // every file a line table named, indexed by Line.File and Inline.CallFile
}

// ErrNoDWARF is returned for a file without .debug_info.
var ErrNoDWARF = errors.New("dwarfsyms: no .debug_info section")

// Read reads the functions of f's DWARF data, unit by unit, calling add
// with each unit's functions in address order once their lines are
// assigned; add says whether it kept the function (Breakpad's
// Module::AddFunction), which matters for later name fix-ups.
func Read(f *elf.File, opts Options, add func(*Func) bool) (*Data, error) {
	if f.Section(".debug_info") == nil {
		return nil, ErrNoDWARF
	}
	if err := CheckCompressed(f, MaxDecompressed); err != nil {
		return nil, err
	}
	opts.Limits.setDefaults()
	opts.Limits.MaxLines = LineRowBound(f, opts.Limits.MaxLines)
	var secErr error
	sec := func(name string) []byte {
		s := f.Section(name)
		if s == nil || s.Type == elf.SHT_NOBITS {
			return nil
		}
		data, err := s.Data()
		if err != nil && secErr == nil {
			secErr = &FormatError{Section: name, Msg: err.Error(), Err: err}
		}
		return data
	}
	s := &Sections{Info: sec(".debug_info"), Abbrev: sec(".debug_abbrev"), Line: sec(".debug_line"), Str: sec(".debug_str"),
		LineStr: sec(".debug_line_str"), HasAddr: f.Section(".debug_addr") != nil, Order: f.ByteOrder}
	if f.Type == elf.ET_REL {
		// Relocatable objects need the relocations debug/elf applies.
		d, err := f.DWARF()
		if err != nil {
			return nil, decodeError(err)
		}
		return read(d, s, opts, add)
	}
	// Each section decompressed once, for debug/dwarf and for us.
	s.Ranges, s.RngLists, s.Addr, s.StrOffsets = sec(".debug_ranges"), sec(".debug_rnglists"), sec(".debug_addr"), sec(".debug_str_offsets")
	if secErr != nil {
		return nil, secErr
	}
	return ReadSections(s, opts, add)
}

// Sections are the DWARF sections ReadSections reads, uncompressed.
type Sections struct {
	Info, Abbrev, Line, Str, LineStr, Ranges, RngLists, Addr, StrOffsets []byte
	HasAddr                                                              bool // a .debug_addr section exists (maybe empty)
	Order                                                                binary.ByteOrder
}

// ReadSections is Read on DWARF sections given as bytes (with no ELF
// relocations applied).
func ReadSections(s *Sections, opts Options, add func(*Func) bool) (*Data, error) {
	if len(s.Info) == 0 {
		return nil, ErrNoDWARF
	}
	if err := checkAbbrevs(s.Abbrev); err != nil {
		return nil, err
	}
	d, err := dwarf.New(s.Abbrev, nil, nil, s.Info, s.Line, nil, s.Ranges, s.Str)
	if err != nil {
		return nil, decodeError(err)
	}
	for name, data := range map[string][]byte{".debug_rnglists": s.RngLists, ".debug_addr": s.Addr,
		".debug_line_str": s.LineStr, ".debug_str_offsets": s.StrOffsets} {
		if len(data) > 0 {
			if err := d.AddSection(name, data); err != nil {
				return nil, decodeError(err)
			}
		}
	}
	return read(d, s, opts, add)
}

func read(d *dwarf.Data, s *Sections, opts Options, add func(*Func) bool) (*Data, error) {
	if err := checkAbbrevs(s.Abbrev); err != nil {
		return nil, err
	}
	opts.Limits.setDefaults()
	rd := &reader{
		d:    d,
		opts: opts,
		add:  add,
		lines: lineReader{
			debugLine: s.Line, debugStr: s.Str, debugLineStr: s.LineStr,
			order: s.Order, files: &fileTable{index: map[string]int{}}, limits: &opts.Limits,
		},
		specs:       map[dwarf.Offset]*spec{},
		origins:     map[dwarf.Offset]string{},
		forwardRefs: map[dwarf.Offset]*Func{},
		inlineRefs:  map[dwarf.Offset]dwarf.Offset{},
		inlineOrigs: map[dwarf.Offset]*Origin{},
	}
	rd.lines.rows = &rd.lineRows
	rd.noDebugAddr = !s.HasAddr && len(s.Addr) == 0
	rd.units = unitVersions(s.Info, s.Order)
	rd.maxDIEs = len(s.Info)
	if err := rd.readAll(); err != nil {
		return nil, err
	}
	return &Data{Files: rd.lines.files.names}, nil
}

// spec is what a DIE others cite by DW_AT_specification gives them.
type spec struct {
	qualified, enclosing, unqualified string
}

type reader struct {
	d     *dwarf.Data
	r     *dwarf.Reader
	opts  Options
	add   func(*Func) bool
	lines lineReader

	specs       map[dwarf.Offset]*spec
	origins     map[dwarf.Offset]string // abstract subprograms' names
	forwardRefs map[dwarf.Offset]*Func  // functions whose name a later DIE gives
	inlineRefs  map[dwarf.Offset]dwarf.Offset
	inlineOrigs map[dwarf.Offset]*Origin

	lineRows, funcs, inlines int
	dies, maxDIEs            int
	noDebugAddr              bool
	units                    []unitHeader

	// per unit
	cu              *unit
	lastCompDir     string
	unitFuncs       []*Func
	funcForwardRefs map[*Func]dwarf.Offset
}

// unit is a compile unit's state.
type unit struct {
	entry    *dwarf.Entry
	offset   dwarf.Offset
	lang     language
	addrSize int
	version  int
	files    map[uint64]int
}

// next reads the next DIE. Each DIE takes at least a byte of
// .debug_info, so more DIEs than bytes means debug/dwarf is not advancing
// (it returns null entries forever at a truncated LEB128).
func (rd *reader) next() (*dwarf.Entry, error) {
	rd.dies++
	if rd.dies > rd.maxDIEs {
		return nil, &FormatError{Section: ".debug_info", Msg: "more DIEs than bytes: a truncated LEB128"}
	}
	e, err := rd.r.Next()
	if err != nil {
		return nil, decodeError(err)
	}
	return e, nil
}

func (rd *reader) readAll() error {
	rd.r = rd.d.Reader()
	for {
		e, err := rd.next()
		if err != nil {
			return decodeError(err)
		}
		if e == nil {
			return nil
		}
		if e.Tag != dwarf.TagCompileUnit && e.Tag != dwarf.TagSkeletonUnit {
			rd.r.SkipChildren()
			continue
		}
		if err := rd.readUnit(e); err != nil {
			return err
		}
	}
}

func (rd *reader) readUnit(e *dwarf.Entry) error {
	cu := &unit{entry: e, offset: e.Offset, lang: langCPlusPlus, addrSize: rd.r.AddressSize()}
	i := sort.Search(len(rd.units), func(i int) bool { return rd.units[i].end > uint64(e.Offset) })
	if i < len(rd.units) {
		cu.version = rd.units[i].version
	}
	rd.cu = cu
	rd.unitFuncs = nil
	rd.funcForwardRefs = map[*Func]dwarf.Offset{}
	var stmtList int64 = -1
	for _, f := range e.Field {
		switch f.Attr {
		case dwarf.AttrLanguage:
			if v, ok := f.Val.(int64); ok {
				cu.lang = languageOf(v)
			}
		case dwarf.AttrStmtList:
			if v, ok := f.Val.(int64); ok {
				stmtList = v
			}
		case dwarf.AttrCompDir:
			if s, ok := f.Val.(string); ok {
				// Breakpad's line reader keeps the last unit's directory
				// when a unit names none.
				rd.lastCompDir = s
			}
		}
	}
	if e.Children {
		if err := rd.children(kindUnit, &dieContext{}, nil, 0, 0); err != nil {
			return err
		}
	}
	if cu.lang == langAssembler {
		// Breakpad skips units in languages without functions.
		return nil
	}
	var lines []Line
	if stmtList >= 0 && rd.lines.debugLine != nil {
		t, err := rd.lines.read(uint64(stmtList), cu.addrSize, rd.lastCompDir)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || strings.Contains(fe.Msg, "more than") {
				return err
			}
			// Breakpad reads what it can of a bad line program; we read
			// none of it, and keep the functions.
		} else {
			lines, cu.files = t.lines, t.files
		}
	}
	assignLines(rd.unitFuncs, lines)
	for _, fn := range rd.unitFuncs {
		forEachInline(fn.Inlines, func(in *Inline) {
			num := uint64(uint32(in.CallFile))
			in.CallFile = -1
			if idx, ok := cu.files[num]; ok {
				in.CallFile = idx
			}
		})
	}
	for _, fn := range rd.unitFuncs {
		if !rd.add(fn) {
			if off, ok := rd.funcForwardRefs[fn]; ok {
				delete(rd.forwardRefs, off)
			}
		}
	}
	return nil
}

// forEachInline visits inlines depth first, parents before children.
func forEachInline(ins []*Inline, fn func(*Inline)) {
	for _, in := range ins {
		fn(in)
		forEachInline(in.Children, fn)
	}
}

// dieContext is the qualified name of the scope DIEs are in.
type dieContext struct{ name string }

type dieKind int

const (
	kindUnit dieKind = iota
	kindScope
	kindFunc
	kindInline
	kindBlock
)

// children reads the children of the DIE just read, of kind parent; ctx is
// the scope they are in (nil under inlines and blocks), inlines collects
// their inlined calls at nesting level level.
func (rd *reader) children(parent dieKind, ctx *dieContext, inlines *[]*Inline, level, depth int) error {
	if depth > rd.opts.Limits.MaxDepth {
		return &FormatError{Section: ".debug_info", Offset: uint64(rd.cu.offset), Msg: fmt.Sprintf("DIEs nested over %d deep", rd.opts.Limits.MaxDepth)}
	}
	for {
		e, err := rd.next()
		if err != nil {
			return decodeError(err)
		}
		if e == nil || e.Tag == 0 {
			return nil
		}
		var handled bool
		kind := childKind(parent, e.Tag, rd.opts.Inlines)
		if kind == kindBlock && rd.opts.NoLexicalBlocks {
			kind = -1
		}
		switch kind {
		case kindFunc:
			handled = true
			err = rd.function(e, ctx, depth)
		case kindScope:
			handled = true
			err = rd.scope(e, ctx, depth)
		case kindInline:
			handled = true
			l := level
			if parent == kindInline {
				l++
			}
			err = rd.inline(e, inlines, l, depth)
		case kindBlock:
			handled = true
			l := level
			if parent == kindInline {
				l++
			}
			if e.Children {
				err = rd.children(kindBlock, nil, inlines, l, depth+1)
			}
		}
		if err != nil {
			return err
		}
		if !handled && e.Children {
			rd.r.SkipChildren()
		}
	}
}

// childKind is how Breakpad handles a DIE of tag under a DIE of kind parent.
func childKind(parent dieKind, tag dwarf.Tag, inlines bool) dieKind {
	const none = -1
	switch parent {
	case kindUnit, kindScope:
		switch tag {
		case dwarf.TagSubprogram:
			return kindFunc
		case dwarf.TagNamespace, dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType:
			return kindScope
		case dwarf.TagModule:
			if parent == kindUnit {
				return kindScope
			}
		}
	case kindFunc:
		switch tag {
		case dwarf.TagInlinedSubroutine:
			if inlines {
				return kindInline
			}
		case dwarf.TagLexDwarfBlock:
			if inlines {
				return kindBlock
			}
		case dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType:
			return kindScope
		}
	case kindInline, kindBlock:
		switch tag {
		case dwarf.TagInlinedSubroutine:
			return kindInline
		case dwarf.TagLexDwarfBlock:
			return kindBlock
		}
	}
	return none
}

// attrs are the attributes of a DIE that Breakpad reads.
type attrs struct {
	offset         dwarf.Offset
	name           string
	hasName        bool
	demangled, raw string
	declaration    bool
	spec           *spec
	noSpec         bool
	origin         *string
	forwardRef     dwarf.Offset
	specOffset     dwarf.Offset
	low, high      uint64
	highIsAddr     bool
	hasRanges      bool
	inline         bool
	callLine       int64
	callFile       int64
}

func (rd *reader) attrsOf(e *dwarf.Entry) *attrs {
	a := &attrs{offset: e.Offset, highIsAddr: true}
	for _, f := range e.Field {
		switch f.Attr {
		case dwarf.AttrName:
			if s, ok := f.Val.(string); ok && s != "" {
				a.name, a.hasName = s, true
			}
		case dwarf.AttrLinkageName, attrMIPSLinkageName:
			if s, ok := f.Val.(string); ok {
				if d, ok := rd.cu.lang.demangle(s); ok {
					a.demangled, a.raw = d, ""
				} else {
					a.demangled, a.raw = "", s
				}
			}
		case dwarf.AttrDeclaration:
			if v, ok := f.Val.(bool); ok {
				a.declaration = v
			}
		case dwarf.AttrSpecification:
			off, ok := f.Val.(dwarf.Offset)
			if !ok {
				break
			}
			if rd.opts.NoInterCURefs && off < rd.cu.offset {
				break
			}
			if s, ok := rd.specs[off]; ok {
				a.spec = s
			} else if off > e.Offset {
				a.forwardRef = off
			} else {
				a.noSpec = true
			}
			a.specOffset = off
		case dwarf.AttrAbstractOrigin:
			off, ok := f.Val.(dwarf.Offset)
			if !ok {
				break
			}
			if name, ok := rd.origins[off]; ok {
				a.origin = &name
			} else if off > e.Offset {
				a.forwardRef = off
			}
			a.specOffset = off
		case dwarf.AttrLowpc:
			if v, ok := f.Val.(uint64); ok {
				a.low = v
			}
		case dwarf.AttrHighpc:
			switch v := f.Val.(type) {
			case uint64:
				a.high, a.highIsAddr = v, true
			case int64:
				a.high, a.highIsAddr = uint64(v), false
			}
		case dwarf.AttrRanges:
			a.hasRanges = true
		case dwarf.AttrInline:
			a.inline = true
		case dwarf.AttrCallLine:
			if v, ok := f.Val.(int64); ok {
				a.callLine = v
			}
		case dwarf.AttrCallFile:
			if v, ok := f.Val.(int64); ok {
				a.callFile = v
			}
		}
	}
	return a
}

// qualifiedName computes a DIE's name as Breakpad's ComputeQualifiedName,
// recording the DIE as a specification others may cite.
func (rd *reader) qualifiedName(a *attrs, parent *dieContext) string {
	var qualified *string
	if a.demangled != "" {
		qualified = &a.demangled
	} else if a.spec != nil && a.spec.qualified != "" {
		qualified = &a.spec.qualified
	}
	var unqualified, enclosing *string
	if qualified == nil {
		switch {
		case a.hasName:
			unqualified = &a.name
		case a.spec != nil:
			unqualified = &a.spec.unqualified
		case a.raw != "":
			unqualified = &a.raw
		}
		if a.spec != nil {
			enclosing = &a.spec.enclosing
		} else if parent != nil {
			enclosing = &parent.name
		}
	}
	var out string
	if qualified != nil {
		out = *qualified
	} else if unqualified != nil && enclosing != nil {
		out = rd.cu.lang.qualify(*enclosing, *unqualified)
	}
	if a.declaration && qualified != nil || unqualified != nil && enclosing != nil {
		s := &spec{}
		if qualified != nil {
			s.qualified = *qualified
		} else {
			s.enclosing, s.unqualified = *enclosing, *unqualified
		}
		rd.specs[a.offset] = s
	}
	return out
}

func (rd *reader) scope(e *dwarf.Entry, parent *dieContext, depth int) error {
	a := rd.attrsOf(e)
	ctx := &dieContext{name: rd.qualifiedName(a, parent)}
	if !e.Children {
		return nil
	}
	return rd.children(kindScope, ctx, nil, 0, depth+1)
}

// rangesOf reads a DIE's ranges as Breakpad: DW_AT_ranges when present (an
// unreadable list gives none), else one range from low_pc to high_pc.
func (rd *reader) rangesOf(e *dwarf.Entry, a *attrs) []Range {
	if !a.hasRanges {
		high := a.high
		if !a.highIsAddr {
			high += a.low
		}
		return []Range{{a.low, high - a.low}}
	}
	if rd.opts.BreakpadRanges && rd.cu.version >= 5 && rd.noDebugAddr {
		return nil
	}
	rs, err := rd.d.Ranges(e)
	if err != nil {
		return nil
	}
	out := make([]Range, len(rs))
	for i, r := range rs {
		out[i] = Range{r[0], r[1] - r[0]}
	}
	// Breakpad's range list handler sorts them: a function's address is
	// its lowest range (GCC's .cold part, below the entry point).
	sort.SliceStable(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out
}

func (rd *reader) function(e *dwarf.Entry, parent *dieContext, depth int) error {
	a := rd.attrsOf(e)
	name := rd.qualifiedName(a, parent)
	if name == "" && a.origin != nil {
		name = *a.origin
	}
	var inlines []*Inline
	if e.Children {
		if err := rd.children(kindFunc, &dieContext{name: name}, &inlines, 0, depth+1); err != nil {
			return err
		}
	}
	if name != "" {
		if fn, ok := rd.forwardRefs[a.offset]; ok {
			fn.Name = name
		}
	}
	ranges := rd.rangesOf(e, a)
	var total uint64
	for _, r := range ranges {
		total += r.Size
	}
	shown := name
	if shown == "" {
		shown = NameOmitted
	}
	if total != 0 {
		if ranges[0].Addr != 0 {
			rd.funcs++
			if rd.funcs > rd.opts.Limits.MaxFuncs {
				return &FormatError{Section: ".debug_info", Offset: uint64(e.Offset), Msg: fmt.Sprintf("more than %d functions", rd.opts.Limits.MaxFuncs)}
			}
			fn := &Func{Name: shown, Ranges: ranges, Inlines: inlines}
			rd.unitFuncs = append(rd.unitFuncs, fn)
			if a.forwardRef != 0 {
				rd.forwardRefs[a.forwardRef] = fn
				rd.funcForwardRefs[fn] = a.forwardRef
			}
		}
	} else if a.inline {
		rd.origins[a.offset] = name
	}
	if rd.opts.Inlines && (total != 0 || a.inline) {
		target := a.offset
		if a.specOffset != 0 {
			target = a.specOffset
		}
		rd.setInlineRef(a.offset, target)
		rd.inlineOrigin(a.offset, shown)
	}
	return nil
}

func (rd *reader) inline(e *dwarf.Entry, inlines *[]*Inline, level, depth int) error {
	a := rd.attrsOf(e)
	name := NameOmitted
	if a.origin != nil && *a.origin != "" {
		name = *a.origin
	}
	var children []*Inline
	if e.Children {
		if err := rd.children(kindInline, nil, &children, level, depth+1); err != nil {
			return err
		}
	}
	ranges := rd.rangesOf(e, a)
	if len(ranges) == 0 {
		return nil
	}
	rd.inlines++
	if rd.inlines > rd.opts.Limits.MaxInlines {
		return &FormatError{Section: ".debug_info", Offset: uint64(e.Offset), Msg: fmt.Sprintf("more than %d inlined calls", rd.opts.Limits.MaxInlines)}
	}
	rd.setInlineRef(a.specOffset, a.specOffset)
	origin := rd.inlineOrigin(a.specOffset, name)
	*inlines = append(*inlines, &Inline{Origin: origin, Ranges: ranges, CallLine: int32(a.callLine),
		CallFile: int(int32(a.callFile)), Level: level, Children: children})
	return nil
}

// setInlineRef and inlineOrigin keep Breakpad's InlineOriginMap: origins
// are found through chains of DW_AT_specification offsets, and a later
// DIE's name replaces "<name omitted>".
func (rd *reader) setInlineRef(off, target dwarf.Offset) {
	cur, ok := rd.inlineRefs[off]
	if !ok {
		rd.inlineRefs[off] = target
		return
	}
	if off == target || target == cur {
		return
	}
	if o, ok := rd.inlineOrigs[cur]; ok {
		rd.inlineOrigs[target] = o
		delete(rd.inlineOrigs, cur)
	}
	rd.inlineRefs[off] = target
}

func (rd *reader) inlineOrigin(off dwarf.Offset, name string) *Origin {
	root := rd.inlineRefs[off]
	// Chains are a few links long; a longer one is a cycle in hostile
	// data, where Breakpad would loop forever.
	for steps := 0; steps < maxRefChain; steps++ {
		next, ok := rd.inlineRefs[root]
		if !ok || next == root {
			break
		}
		root = next
	}
	if o, ok := rd.inlineOrigs[root]; ok {
		if o.Name == NameOmitted {
			o.Name = name
		}
		return o
	}
	o := &Origin{Name: name}
	rd.inlineOrigs[root] = o
	return o
}

// language is a unit's DW_AT_language as Breakpad groups them.
type language int

const (
	langCPlusPlus language = iota
	langJava
	langSwift
	langRust
	langAssembler
	langObjC
	langObjCPlusPlus
)

func languageOf(v int64) language {
	switch v {
	case 0x0b:
		return langJava
	case 0x1e:
		return langSwift
	case 0x1c:
		return langRust
	case 0x8001:
		return langAssembler
	case 0x10:
		return langObjC
	case 0x11:
		return langObjCPlusPlus
	}
	return langCPlusPlus
}

// maxRefChain bounds the DW_AT_specification chains followed.
const maxRefChain = 64

// maxDemangleInput bounds the linkage names handed to the demangler.
const maxDemangleInput = 1 << 14

func (l language) demangle(s string) (string, bool) {
	switch l {
	case langSwift, langRust:
		return s, true
	case langCPlusPlus, langObjCPlusPlus:
		if len(s) > 2 && s[0] == '_' && s[1] == 'Z' && len(s) <= maxDemangleInput {
			if d, err := Demangle(s, demangle.MaxLength(16)); err == nil && d != "" {
				return d, true
			}
		}
	}
	return "", false
}

func (l language) qualify(parent, name string) string {
	switch l {
	case langObjC, langAssembler:
		return name
	case langObjCPlusPlus:
		if len(name) >= 2 && (name[0] == '-' || name[0] == '+') && name[1] == '[' {
			return name
		}
	}
	if parent == "" {
		return name
	}
	if l == langJava || l == langSwift || l == langRust {
		return parent + "." + name
	}
	return parent + "::" + name
}

// attrMIPSLinkageName is DW_AT_MIPS_linkage_name, which debug/dwarf does not name.
const attrMIPSLinkageName dwarf.Attr = 0x2007

// unitHeader is where a unit of .debug_info ends, and its DWARF version
// (which debug/dwarf does not tell).
type unitHeader struct {
	end     uint64
	version int
}

func unitVersions(info []byte, order binary.ByteOrder) []unitHeader {
	var out []unitHeader
	b := newBuf(".debug_info", info, order)
	for b.Err == nil && b.Off() < uint64(len(info)) {
		length := uint64(b.U32())
		if length == 0xffffffff {
			length = b.U64()
		}
		start := b.Off()
		v := int(b.U16())
		if b.Err != nil || length > uint64(len(info))-start {
			break
		}
		out = append(out, unitHeader{start + length, v})
		b.Seek(start + length)
	}
	return out
}

// decodeError makes an error of debug/dwarf (a DecodeError, or an untyped
// one) a *FormatError.
func decodeError(err error) error {
	var de dwarf.DecodeError
	if errors.As(err, &de) {
		return &FormatError{Section: de.Name, Offset: uint64(de.Offset), Msg: de.Err, Err: err}
	}
	return &FormatError{Section: ".debug_info", Msg: err.Error(), Err: err}
}

// maxAbbrevAttrs bounds the attributes of one abbreviation. Compilers use
// a few dozen; debug/dwarf makes a field for each in every DIE, and with
// DW_FORM_implicit_const a DIE of one byte could otherwise make thousands.
const maxAbbrevAttrs = 256

// checkAbbrevs refuses a .debug_abbrev section with an abbreviation of
// more than maxAbbrevAttrs attributes.
func checkAbbrevs(data []byte) error {
	b := newBuf(".debug_abbrev", data, binary.LittleEndian)
	for b.Err == nil && b.Off() < uint64(len(data)) {
		start := b.Off()
		if b.ULEB() == 0 { // the end of a unit's abbreviations
			continue
		}
		b.ULEB() // tag
		b.U8()   // children
		for n := 0; b.Err == nil; n++ {
			attr, form := b.ULEB(), b.ULEB()
			if attr == 0 && form == 0 {
				break
			}
			if form == 0x21 { // DW_FORM_implicit_const
				b.SLEB()
			}
			if n >= maxAbbrevAttrs {
				return &FormatError{Section: ".debug_abbrev", Offset: start, Msg: fmt.Sprintf("abbreviation with over %d attributes", maxAbbrevAttrs)}
			}
		}
	}
	// A truncated section is debug/dwarf's to report.
	return nil
}
