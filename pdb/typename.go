package pdb

import (
	"encoding/binary"
	"strings"
)

// Type record kinds (CodeView LEAF_ENUM_e) the name formatter reads.
const (
	lfModifier   = 0x1001
	lfPointer    = 0x1002
	lfProcedure  = 0x1008
	lfMFunction  = 0x1009
	lfArgList    = 0x1201
	lfArray      = 0x1503
	lfClass      = 0x1504
	lfStructure  = 0x1505
	lfUnion      = 0x1506
	lfEnum       = 0x1507
	lfInterface  = 0x1519
	lfClass2     = 0x1608
	lfStructure2 = 0x1609
	lfFuncID     = 0x1601
	lfMFuncID    = 0x1602
	lfStringID   = 0x1605
)

// Bounds on formatting a name: hostile type graphs may loop or explode.
const (
	maxTypeDepth = 24
	maxNameLen   = 4096
)

// simpleTypeNames are the names of the basic types (type index low byte)
// as Microsoft's undecorator writes them; "" is unknown. An array, not a
// map, so that the linker lays it out and no initialiser runs at start.
var simpleTypeNames = [256]string{
	0x03: "void", 0x08: "HRESULT",
	0x10: "char", 0x20: "unsigned char", 0x68: "signed char", 0x69: "unsigned char", 0x70: "char",
	0x71: "wchar_t", 0x7a: "char16_t", 0x7b: "char32_t", 0x7c: "char8_t",
	0x11: "short", 0x21: "unsigned short", 0x72: "short", 0x73: "unsigned short",
	0x12: "long", 0x22: "unsigned long", 0x74: "int", 0x75: "unsigned int",
	0x13: "__int64", 0x23: "unsigned __int64", 0x76: "__int64", 0x77: "unsigned __int64",
	0x14: "__int128", 0x24: "unsigned __int128", 0x78: "__int128", 0x79: "unsigned __int128",
	0x30: "bool", 0x31: "bool", 0x32: "bool", 0x33: "bool", 0x34: "bool",
	0x40: "float", 0x41: "double", 0x42: "long double", 0x43: "__float128", 0x46: "__float16",
}

// ArgList formats the parameters of procedure type ti (LF_PROCEDURE or
// LF_MFUNCTION) as Microsoft's undecorator prints them in the names
// Breakpad's Windows dump_syms writes: "(wchar_t const *,unsigned int)",
// no spaces after commas, "()" for none. ok is false when ti is not a
// procedure type or its records are missing or malformed.
func (t *TypeStream) ArgList(ti uint32) (string, bool) {
	kind, data, ok := t.Record(ti)
	if !ok {
		return "", false
	}
	var list uint32
	switch {
	case kind == lfProcedure && len(data) >= 12:
		list = binary.LittleEndian.Uint32(data[8:])
	case kind == lfMFunction && len(data) >= 20:
		list = binary.LittleEndian.Uint32(data[16:])
	default:
		return "", false
	}
	f := &typeFormatter{t: t}
	s := f.args(list, 0)
	return s, !f.bad && len(s) <= maxNameLen
}

type typeFormatter struct {
	t   *TypeStream
	bad bool
}

func (f *typeFormatter) args(list uint32, depth int) string {
	kind, data, ok := f.t.Record(list)
	if !ok || kind != lfArgList || len(data) < 4 {
		f.bad = true
		return ""
	}
	n := binary.LittleEndian.Uint32(data)
	if uint64(n)*4 > uint64(len(data)-4) {
		f.bad = true
		return ""
	}
	var b strings.Builder
	b.WriteByte('(')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		arg := binary.LittleEndian.Uint32(data[4+4*i:])
		if arg == 0 { // T_NOTYPE ends a variadic list
			b.WriteString("...")
			continue
		}
		b.WriteString(f.name(f.byValue(arg), depth+1))
		if b.Len() > maxNameLen {
			f.bad = true
			break
		}
	}
	b.WriteByte(')')
	return b.String()
}

// byValue strips a const or volatile from a parameter passed by value
// (not a pointer or reference): Microsoft's mangling drops it, so the
// undecorated names Breakpad prints have "unsigned int", not "unsigned
// int const"; a pointer's own const ("T * const") is kept.
func (f *typeFormatter) byValue(ti uint32) uint32 {
	kind, data, ok := f.t.Record(ti)
	if !ok || kind != lfModifier || len(data) < 4 {
		return ti
	}
	return binary.LittleEndian.Uint32(data)
}

// name formats type ti in the undecorator's style: "T const *",
// "T * const", "T &", "T &&", "R (*)(A,B)".
func (f *typeFormatter) name(ti uint32, depth int) string {
	if depth > maxTypeDepth || f.bad {
		f.bad = true
		return ""
	}
	if ti < 0x1000 {
		return f.simple(ti)
	}
	kind, data, ok := f.t.Record(ti)
	if !ok {
		f.bad = true
		return ""
	}
	r := newReader(f.t.stream, data, 0)
	switch kind {
	case lfModifier:
		under, mods := r.u32(), r.u16()
		return f.name(under, depth+1) + modifiers(mods&1 != 0, mods&2 != 0)
	case lfPointer:
		return f.pointer(r, depth)
	case lfProcedure, lfMFunction:
		ret := r.u32()
		list := uint32(0)
		if kind == lfProcedure {
			r.u32()
			list = r.u32()
		} else {
			r.bytes(12, "member function")
			list = r.u32()
		}
		return f.name(ret, depth+1) + " ()" + f.args(list, depth+1)
	case lfClass, lfStructure, lfInterface:
		r.bytes(16, "class")
		skipNumeric(r)
	case lfClass2, lfStructure2:
		r.bytes(18, "class")
		skipNumeric(r)
	case lfUnion:
		r.bytes(8, "union")
		skipNumeric(r)
	case lfEnum:
		r.bytes(12, "enum")
	case lfArray:
		elem := r.u32()
		return f.name(elem, depth+1) + " []"
	default:
		f.bad = true
		return ""
	}
	name := r.cstring()
	if r.err != nil {
		f.bad = true
	}
	return name
}

func (f *typeFormatter) pointer(r *reader, depth int) string {
	referent, attrs := r.u32(), r.u32()
	if r.err != nil {
		f.bad = true
		return ""
	}
	sym := " *"
	switch (attrs >> 5) & 7 {
	case 1:
		sym = " &"
	case 4:
		sym = " &&"
	}
	sym += modifiers(attrs&0x400 != 0, attrs&0x200 != 0)
	// A pointer to a function puts itself between the return type and
	// the parameters: "bool (*)(void *)".
	if k, _, ok := f.t.Record(referent); ok && (k == lfProcedure || k == lfMFunction) {
		fn := f.name(referent, depth+1)
		if i := strings.Index(fn, " ()("); i >= 0 {
			return fn[:i] + " (" + strings.TrimPrefix(sym, " ") + ")" + fn[i+3:]
		}
		return fn
	}
	return f.name(referent, depth+1) + sym
}

func modifiers(isConst, isVolatile bool) string {
	s := ""
	if isConst {
		s += " const"
	}
	if isVolatile {
		s += " volatile"
	}
	return s
}

func (f *typeFormatter) simple(ti uint32) string {
	base := simpleTypeNames[ti&0xff]
	if base == "" {
		f.bad = true
		return ""
	}
	if ti&0x700 != 0 { // a pointer of some size to the basic type
		return base + " *"
	}
	return base
}

// skipNumeric skips a numeric leaf: a value below 0x8000 is itself,
// else a kind saying how many bytes follow.
func skipNumeric(r *reader) {
	v := r.u16()
	if v < 0x8000 {
		return
	}
	sizes := map[uint16]int{0x8000: 1, 0x8001: 2, 0x8002: 2, 0x8003: 4, 0x8004: 4, 0x8005: 4, 0x8006: 8, 0x8009: 8, 0x800a: 8, 0x8017: 16, 0x8018: 16}
	n, ok := sizes[v]
	if !ok {
		r.fail("numeric leaf kind %#x unknown", v)
		return
	}
	r.bytes(n, "numeric leaf")
}

// FuncID resolves an IPI function id (LF_FUNC_ID, LF_MFUNC_ID): the
// function's qualified name (its scope or class, "::", its name) and its
// TPI procedure type.
func (ids *TypeStream) FuncID(id uint32, types *TypeStream) (name string, typ uint32, ok bool) {
	kind, data, ok := ids.Record(id)
	if !ok || len(data) < 8 {
		return "", 0, false
	}
	r := newReader(ids.stream, data, 0)
	scope, typ := r.u32(), r.u32()
	name = r.cstring()
	if r.err != nil {
		return "", 0, false
	}
	switch kind {
	case lfFuncID:
		if scope != 0 {
			if k, d, ok := ids.Record(scope); ok && k == lfStringID && len(d) > 4 {
				if s, ok := cstringAt(d, 4); ok && s != "" {
					name = s + "::" + name
				}
			}
		}
	case lfMFuncID:
		f := &typeFormatter{t: types}
		if cls := f.name(scope, 0); !f.bad && cls != "" {
			name = cls + "::" + name
		}
	default:
		return "", 0, false
	}
	return name, typ, true
}

// simpleTypeSizes are the sizes of the basic types (type index low byte);
// 0 is unknown. An array for the same reason as simpleTypeNames.
var simpleTypeSizes = [256]uint8{
	0x10: 1, 0x20: 1, 0x68: 1, 0x69: 1, 0x70: 1, 0x30: 1, 0x7c: 1,
	0x11: 2, 0x21: 2, 0x72: 2, 0x73: 2, 0x71: 2, 0x7a: 2, 0x31: 2, 0x46: 2,
	0x12: 4, 0x22: 4, 0x74: 4, 0x75: 4, 0x7b: 4, 0x32: 4, 0x40: 4, 0x08: 4,
	0x13: 8, 0x23: 8, 0x76: 8, 0x77: 8, 0x33: 8, 0x41: 8,
	0x14: 16, 0x24: 16, 0x78: 16, 0x79: 16, 0x43: 16, 0x42: 10,
}

// Size is the size in bytes of type ti; ok is false when it is unknown (a
// forward reference, a malformed or missing record).
func (t *TypeStream) Size(ti uint32) (uint64, bool) {
	for range maxTypeDepth {
		if ti < 0x1000 {
			switch ti & 0x700 {
			case 0:
				n := simpleTypeSizes[ti&0xff]
				return uint64(n), n != 0
			case 0x100:
				return 2, true
			case 0x600:
				return 8, true
			default:
				return 4, true
			}
		}
		kind, data, ok := t.Record(ti)
		if !ok {
			return 0, false
		}
		r := newReader(t.stream, data, 0)
		switch kind {
		case lfModifier:
			ti = r.u32()
			continue
		case lfPointer:
			r.u32()
			return uint64(r.u32()>>13) & 0x3f, r.err == nil
		case lfEnum:
			r.u32()
			ti = r.u32()
			continue
		case lfClass, lfStructure, lfInterface, lfUnion:
			r.u16()
			if r.u16()&0x80 != 0 { // a forward reference: no size here
				return 0, false
			}
			if kind == lfUnion {
				r.u32()
			} else {
				r.bytes(12, "class")
			}
			return numeric(r)
		case lfArray:
			r.bytes(8, "array")
			return numeric(r)
		}
		return 0, false
	}
	return 0, false
}

// numeric reads a numeric leaf's value (unsigned kinds up to 8 bytes).
func numeric(r *reader) (uint64, bool) {
	v := r.u16()
	if v < 0x8000 {
		return uint64(v), r.err == nil
	}
	switch v {
	case 0x8000:
		return uint64(r.u8()), r.err == nil
	case 0x8001, 0x8002:
		return uint64(r.u16()), r.err == nil
	case 0x8003, 0x8004:
		return uint64(r.u32()), r.err == nil
	case 0x8009, 0x800a:
		lo := uint64(r.u32())
		return lo | uint64(r.u32())<<32, r.err == nil
	}
	return 0, false
}

// ParamCount is the number of parameters of procedure type ti
// (LF_PROCEDURE, LF_MFUNCTION; "this" not counted).
func (t *TypeStream) ParamCount(ti uint32) (int, bool) {
	kind, data, ok := t.Record(ti)
	switch {
	case ok && kind == lfProcedure && len(data) >= 8:
		return int(binary.LittleEndian.Uint16(data[6:])), true
	case ok && kind == lfMFunction && len(data) >= 16:
		return int(binary.LittleEndian.Uint16(data[14:])), true
	}
	return 0, false
}
