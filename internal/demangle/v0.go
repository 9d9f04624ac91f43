package demangle

import (
	"strconv"
	"strings"
)

// Rust v0 names (`_R…`, rust-lang RFC 2603 and rustc's
// symbol-mangling/v0.md), printed as libiberty's rust-demangle.c prints
// them without DMGL_VERBOSE: no crate disambiguators, no constants'
// types, closures and shims as `{closure#N}`, the instantiating crate and
// a `.suffix` (`.llvm.123`) left out. A name libiberty cannot read is
// reported as not demangled, so that it is kept as it is, as c++filt
// keeps it.

const (
	// v0MaxDepth is libiberty's bound on nested paths and types.
	v0MaxDepth = 1024
	// v0MaxSteps bounds the paths, types and constants read, backrefs
	// re-read included: a short name may refer to its parts many times.
	v0MaxSteps = 1 << 18
)

type v0Demangler struct {
	sym        string // after `_R`, up to a `.suffix`
	pos        int
	out        strings.Builder
	skipping   bool   // reading the impl path or the instantiating crate
	boundDepth uint64 // lifetimes bound by the enclosing `for<…>`
	depth      int
	steps      int
	failed     bool
}

// rustV0 demangles a Rust v0 name: false for anything libiberty would not
// demangle either.
func rustV0(name string) (string, bool) {
	if !strings.HasPrefix(name, "_R") {
		return "", false
	}
	sym := name[2:]
	if i := strings.IndexByte(sym, '.'); i >= 0 {
		sym = sym[:i]
	}
	for i := 0; i < len(sym); i++ {
		if c := sym[i]; !(c == '_' || isDigit(c) || isLower(c) || isUpper(c)) {
			return "", false
		}
	}
	if sym == "" || !isUpper(sym[0]) {
		return "", false
	}
	d := &v0Demangler{sym: sym}
	d.path(true)
	if !d.failed && d.pos < len(d.sym) {
		d.skipping = true
		d.path(false) // the instantiating crate
	}
	// An empty name (`_RC0`, c++filt's `[0]`) is no name: keep the symbol.
	if d.failed || d.pos != len(d.sym) || d.out.Len() == 0 {
		return "", false
	}
	return d.out.String(), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

func (d *v0Demangler) peek() byte {
	if d.pos < len(d.sym) {
		return d.sym[d.pos]
	}
	return 0
}

func (d *v0Demangler) next() byte {
	if d.pos >= len(d.sym) {
		d.failed = true
		return 0
	}
	c := d.sym[d.pos]
	d.pos++
	return c
}

func (d *v0Demangler) eat(c byte) bool {
	if !d.failed && d.peek() == c {
		d.pos++
		return true
	}
	return false
}

func (d *v0Demangler) print(s string) {
	if d.skipping || d.failed {
		return
	}
	if d.out.Len()+len(s) > 1<<maxOutputPow {
		d.failed = true
		return
	}
	d.out.WriteString(s)
}

// enter counts one more level of nesting and one more step; leave undoes
// the level.
func (d *v0Demangler) enter() bool {
	d.depth++
	d.steps++
	if d.depth > v0MaxDepth || d.steps > v0MaxSteps {
		d.failed = true
	}
	return !d.failed
}

func (d *v0Demangler) leave() { d.depth-- }

// integer62 reads a base-62 number: `_` is 0, digits then `_` their value
// plus one.
func (d *v0Demangler) integer62() uint64 {
	if d.eat('_') {
		return 0
	}
	var x uint64
	for !d.failed && !d.eat('_') {
		c := d.next()
		var v uint64
		switch {
		case isDigit(c):
			v = uint64(c - '0')
		case isLower(c):
			v = uint64(c-'a') + 10
		case isUpper(c):
			v = uint64(c-'A') + 36
		default:
			d.failed = true
			return 0
		}
		x = x*62 + v // wraps past 64 bits, as libiberty's does
	}
	return x + 1
}

// optInteger62 reads `tag` and a base-62 number plus one, or 0 without
// the tag.
func (d *v0Demangler) optInteger62(tag byte) uint64 {
	if !d.eat(tag) {
		return 0
	}
	return d.integer62() + 1
}

func (d *v0Demangler) disambiguator() uint64 { return d.optInteger62('s') }

// v0Ident is an identifier: ASCII, and Punycode-encoded characters when
// punycode is set.
type v0Ident struct {
	ascii    string
	punycode string
}

func (d *v0Demangler) ident() v0Ident {
	isPunycode := d.eat('u')
	c := d.next()
	if !isDigit(c) {
		d.failed = true
		return v0Ident{}
	}
	n := int(c - '0')
	if c != '0' {
		for isDigit(d.peek()) {
			n = n*10 + int(d.next()-'0')
			if n > len(d.sym) {
				d.failed = true
				return v0Ident{}
			}
		}
	}
	d.eat('_')
	if n > len(d.sym)-d.pos {
		d.failed = true
		return v0Ident{}
	}
	s := d.sym[d.pos : d.pos+n]
	d.pos += n
	if !isPunycode {
		return v0Ident{ascii: s}
	}
	// The last `_` separates the ASCII characters from the encoded ones.
	i := strings.LastIndexByte(s, '_')
	id := v0Ident{ascii: s[:max(i, 0)], punycode: s[i+1:]}
	if id.punycode == "" {
		d.failed = true
	}
	return id
}

func (id v0Ident) empty() bool { return id.ascii == "" && id.punycode == "" }

func (d *v0Demangler) printIdent(id v0Ident) {
	if id.punycode == "" {
		d.print(id.ascii)
		return
	}
	s, ok := decodePunycode(id.ascii, id.punycode)
	if !ok {
		d.failed = true
		return
	}
	d.print(s)
}

// path prints a path; inValue is a function's path, whose generic
// arguments are written `::<…>`.
func (d *v0Demangler) path(inValue bool) {
	if !d.enter() {
		return
	}
	defer d.leave()
	switch tag := d.next(); tag {
	case 'C':
		d.disambiguator()
		d.printIdent(d.ident())
	case 'M', 'X', 'Y':
		d.implPath(tag, inValue)
	case 'N':
		d.nestedPath(inValue)
	case 'I':
		d.path(inValue)
		if inValue {
			d.print("::")
		}
		d.print("<")
		d.list(", ", d.genericArg)
		d.print(">")
	case 'B':
		d.backref(func() { d.path(inValue) })
	default:
		d.failed = true
	}
}

// implPath prints `<T>` (M, an inherent impl), `<T as Trait>` (X, a trait
// impl; Y, a trait's own item); the impl's own path is read, not printed.
func (d *v0Demangler) implPath(tag byte, inValue bool) {
	if tag != 'Y' {
		d.disambiguator()
		was := d.skipping
		d.skipping = true
		d.path(inValue)
		d.skipping = was
	}
	d.print("<")
	d.typ()
	if tag != 'M' {
		d.print(" as ")
		d.path(false)
	}
	d.print(">")
}

func (d *v0Demangler) nestedPath(inValue bool) {
	ns := d.next()
	if !isLower(ns) && !isUpper(ns) {
		d.failed = true
		return
	}
	d.path(inValue)
	dis := d.disambiguator()
	id := d.ident()
	if isLower(ns) {
		if !id.empty() {
			d.print("::")
			d.printIdent(id)
		}
		return
	}
	// Special namespaces: closures, shims and others rustc may add.
	d.print("::{")
	switch ns {
	case 'C':
		d.print("closure")
	case 'S':
		d.print("shim")
	default:
		d.print(string(ns))
	}
	if !id.empty() {
		d.print(":")
		d.printIdent(id)
	}
	d.print("#" + strconv.FormatUint(dis, 10) + "}")
}

// backref reads a backref and, unless printing is skipped, reads what it
// points to with read. As libiberty, it does not check that it points
// back: one that loops runs into the depth bound.
func (d *v0Demangler) backref(read func()) {
	target := d.integer62()
	if d.failed || d.skipping {
		return
	}
	if target >= uint64(len(d.sym)) {
		d.failed = true
		return
	}
	saved := d.pos
	d.pos = int(target)
	read()
	d.pos = saved
}

func (d *v0Demangler) genericArg() {
	switch {
	case d.eat('L'):
		d.lifetime(d.integer62())
	case d.eat('K'):
		d.constant()
	default:
		d.typ()
	}
}

// lifetime prints lifetime lt, counted from the innermost binder: 'a, 'b
// … from the outermost one, '_ for an erased one.
func (d *v0Demangler) lifetime(lt uint64) {
	d.print("'")
	if lt == 0 {
		d.print("_")
		return
	}
	if lt > d.boundDepth {
		d.failed = true
		return
	}
	depth := d.boundDepth - lt
	if depth < 26 {
		d.print(string(rune('a' + depth)))
		return
	}
	d.print("_" + strconv.FormatUint(depth, 10))
}

// binder prints `for<'a, …> ` and binds its lifetimes.
func (d *v0Demangler) binder() {
	n := d.optInteger62('G')
	if n == 0 || d.failed {
		return
	}
	if n > 1<<maxOutputPow {
		d.failed = true
		return
	}
	d.print("for<")
	for i := uint64(0); i < n && !d.failed; i++ {
		if i > 0 {
			d.print(", ")
		}
		d.boundDepth++
		d.lifetime(1)
	}
	d.print("> ")
}

// v0BasicTypes are the basic types' names by their lower-case letter
// (the array runs to 'z', so any lower-case letter indexes it).
var v0BasicTypes = [...]string{
	'a': "i8", 'b': "bool", 'c': "char", 'd': "f64", 'e': "str",
	'f': "f32", 'h': "u8", 'i': "isize", 'j': "usize", 'l': "i32",
	'm': "u32", 'n': "i128", 'o': "u128", 'p': "_", 's': "i16",
	't': "u16", 'u': "()", 'v': "...", 'x': "i64", 'y': "u64",
	'z': "!",
}

func basicType(c byte) string {
	if isLower(c) {
		return v0BasicTypes[c]
	}
	return ""
}

func (d *v0Demangler) typ() {
	tag := d.next()
	if s := basicType(tag); s != "" {
		d.print(s)
		return
	}
	if d.failed || !d.enter() {
		return
	}
	defer d.leave()
	switch tag {
	case 'R', 'Q':
		d.print("&")
		if d.eat('L') {
			if lt := d.integer62(); lt != 0 {
				d.lifetime(lt)
				d.print(" ")
			}
		}
		if tag == 'Q' {
			d.print("mut ")
		}
		d.typ()
	case 'P':
		d.print("*const ")
		d.typ()
	case 'O':
		d.print("*mut ")
		d.typ()
	case 'A', 'S':
		d.print("[")
		d.typ()
		if tag == 'A' {
			d.print("; ")
			d.constant()
		}
		d.print("]")
	case 'T':
		d.print("(")
		if d.list(", ", d.typ) == 1 {
			d.print(",")
		}
		d.print(")")
	case 'F':
		d.fnSig()
	case 'D':
		d.dynTraits()
	case 'B':
		d.backref(d.typ)
	default:
		d.pos-- // a path: let path read its tag
		d.path(false)
	}
}

// fnSig prints a function pointer type: binder, unsafe, ABI, arguments
// and a return type other than ().
func (d *v0Demangler) fnSig() {
	outer := d.boundDepth
	defer func() { d.boundDepth = outer }()
	d.binder()
	if d.eat('U') {
		d.print("unsafe ")
	}
	if d.eat('K') {
		abi := "C"
		if !d.eat('C') {
			id := d.ident()
			if id.ascii == "" || id.punycode != "" {
				d.failed = true
				return
			}
			abi = id.ascii
		}
		// rustc wrote the ABI's `-` as `_`.
		d.print(`extern "` + strings.ReplaceAll(abi, "_", "-") + `" `)
	}
	d.print("fn(")
	d.list(", ", d.typ)
	d.print(")")
	if !d.eat('u') {
		d.print(" -> ")
		d.typ()
	}
}

// dynTraits prints `dyn Trait<…> + Trait2 + 'a`.
func (d *v0Demangler) dynTraits() {
	d.print("dyn ")
	outer := d.boundDepth
	d.binder()
	d.list(" + ", d.dynTrait)
	d.boundDepth = outer
	if !d.eat('L') {
		d.failed = true
		return
	}
	if lt := d.integer62(); lt != 0 {
		d.print(" + ")
		d.lifetime(lt)
	}
}

func (d *v0Demangler) dynTrait() {
	open := d.pathMaybeOpenGenerics()
	for !d.failed && d.eat('p') {
		if open {
			d.print(", ")
		} else {
			d.print("<")
		}
		open = true
		d.printIdent(d.ident())
		d.print(" = ")
		d.typ()
	}
	if open {
		d.print(">")
	}
}

// pathMaybeOpenGenerics prints a trait's path, leaving its generic
// arguments' `<` open for associated type bindings to follow.
func (d *v0Demangler) pathMaybeOpenGenerics() bool {
	if !d.enter() {
		return false
	}
	defer d.leave()
	open := false
	switch {
	case d.eat('B'):
		d.backref(func() { open = d.pathMaybeOpenGenerics() })
	case d.eat('I'):
		d.path(false)
		d.print("<")
		open = true
		d.list(", ", d.genericArg)
	default:
		d.path(false)
	}
	return open
}

// constant prints a const generic argument: an integer, bool or char
// (libiberty reads no other kind), `_` for a placeholder.
func (d *v0Demangler) constant() {
	if d.failed {
		return
	}
	if d.eat('B') {
		d.backref(d.constant)
		return
	}
	switch tag := d.next(); tag {
	case 'p':
		d.print("_")
	case 'h', 't', 'm', 'y', 'o', 'j':
		d.constUint()
	case 'a', 's', 'l', 'x', 'n', 'i':
		if d.eat('n') {
			d.print("-")
		}
		d.constUint()
	case 'b':
		switch v, n := d.hexNibbles(); {
		case n == 1 && v == 0:
			d.print("false")
		case n == 1 && v == 1:
			d.print("true")
		default:
			d.failed = true
		}
	case 'c':
		d.constChar()
	default:
		d.failed = true
	}
}

// hexNibbles reads hex digits up to `_`: their value (of the last 16)
// and their number.
func (d *v0Demangler) hexNibbles() (uint64, int) {
	var v uint64
	n := 0
	for !d.failed && !d.eat('_') {
		c := d.next()
		switch {
		case isDigit(c):
			v = v<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		default:
			d.failed = true
		}
		n++
	}
	return v, n
}

func (d *v0Demangler) constUint() {
	start := d.pos
	v, n := d.hexNibbles()
	switch {
	case d.failed || n == 0:
		d.failed = true
	case n > 16:
		d.print("0x" + d.sym[start:start+n]) // past uint64: verbatim
	default:
		d.print(strconv.FormatUint(v, 10))
	}
}

// constChar prints a char constant as libiberty does: printable ASCII as
// it is, \t \r \n, anything else \u{hex}.
func (d *v0Demangler) constChar() {
	v, n := d.hexNibbles()
	if d.failed || n == 0 || n > 8 {
		d.failed = true
		return
	}
	switch {
	case v == '\t':
		d.print(`'\t'`)
	case v == '\r':
		d.print(`'\r'`)
	case v == '\n':
		d.print(`'\n'`)
	case v > ' ' && v < '~':
		d.print("'" + string(rune(v)) + "'")
	default:
		d.print(`'\u{` + strconv.FormatUint(v, 16) + `}'`)
	}
}

// decodePunycode decodes an identifier's Punycode (RFC 3492, with `_` for
// its delimiter) after its ASCII part, writing each code point's UTF-8
// bytes as libiberty does.
func decodePunycode(ascii, code string) (string, bool) {
	const (
		base, tMin, tMax, skew = 36, 1, 26, 38
		maxPoints              = 1 << 12
	)
	points := make([]uint32, 0, len(ascii)+len(code))
	for i := 0; i < len(ascii); i++ {
		points = append(points, uint32(ascii[i]))
	}
	damp, bias, i, n := uint64(700), uint64(72), uint64(0), uint64(0x80)
	for pos := 0; pos < len(code); {
		delta, w := uint64(0), uint64(1)
		for k := uint64(base); ; k += base {
			t := min(max(int64(k)-int64(bias), tMin), tMax)
			if pos >= len(code) {
				return "", false
			}
			c := code[pos]
			pos++
			var digit uint64
			switch {
			case isLower(c):
				digit = uint64(c - 'a')
			case isDigit(c):
				digit = 26 + uint64(c-'0')
			default:
				return "", false
			}
			delta += digit * w
			if delta > 1<<32 || w > 1<<32 {
				return "", false
			}
			if digit < uint64(t) {
				break
			}
			w *= uint64(base - t)
		}
		length := uint64(len(points) + 1)
		i += delta
		n += i / length
		i %= length
		if n > 0x10ffff || length > maxPoints {
			return "", false
		}
		points = append(points, 0)
		copy(points[i+1:], points[i:])
		points[i] = uint32(n)
		i++
		if pos == len(code) {
			break
		}
		delta /= damp
		damp = 2
		delta += delta / length
		k := uint64(0)
		for delta > ((base-tMin)*tMax)/2 {
			delta /= base - tMin
			k += base
		}
		bias = k + ((base-tMin+1)*delta)/(delta+skew)
	}
	var sb strings.Builder
	for _, p := range points {
		writeLibibertyUTF8(&sb, p)
	}
	return sb.String(), true
}

// writeLibibertyUTF8 writes p as libiberty does: its UTF-8 encoding for
// ASCII and the code points Punycode adds (>= 0x80).
func writeLibibertyUTF8(sb *strings.Builder, p uint32) {
	switch {
	case p < 0x80:
		sb.WriteByte(byte(p))
	case p < 0x800:
		sb.WriteByte(byte(0xc0 | p>>6))
		sb.WriteByte(byte(0x80 | p&0x3f))
	case p < 0x10000:
		sb.WriteByte(byte(0xe0 | p>>12))
		sb.WriteByte(byte(0x80 | (p>>6)&0x3f))
		sb.WriteByte(byte(0x80 | p&0x3f))
	default:
		sb.WriteByte(byte(0xf0 | p>>18))
		sb.WriteByte(byte(0x80 | (p>>12)&0x3f))
		sb.WriteByte(byte(0x80 | (p>>6)&0x3f))
		sb.WriteByte(byte(0x80 | p&0x3f))
	}
}

// list reads items up to an E, printing sep between them; it returns
// their number.
func (d *v0Demangler) list(sep string, item func()) int {
	n := 0
	for ; !d.failed && !d.eat('E'); n++ {
		if n > 0 {
			d.print(sep)
		}
		item()
	}
	return n
}
