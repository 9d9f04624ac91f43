package demangle

import (
	"strconv"
	"strings"
)

// Microsoft C++ decorated names (`?name@scope@@…`), undecorated as
// Breakpad's Windows dump_syms prints them: DIA's get_undecoratedNameEx
// (DbgHelp's UnDecorateSymbolName) with UNDNAME_NO_MS_KEYWORDS,
// NO_FUNCTION_RETURNS, NO_ALLOCATION_MODEL, NO_ALLOCATION_LANGUAGE,
// NO_THISTYPE, NO_ACCESS_SPECIFIERS, NO_THROW_SIGNATURES, NO_MEMBER_TYPE,
// NO_RETURN_UDT_MODEL and NO_ECSU, and a final "(void)" turned into "()".
// So `?h@C@google_breakpad@@SAPADABV12@@Z` is
// `google_breakpad::C::h(google_breakpad::C const &)`: the scopes, the
// parameters in DbgHelp's spelling (`T const *`, `T * *`, "," between
// them, `> >`), no return type, calling convention, access, static,
// virtual, const of `this` or class/struct keyword.
//
// Functions only: the publics of code that dump_syms names. Variables,
// vftables, thunks and the rarer encodings are reported as not demangled,
// so the name is kept as it is.

const msvcMaxDepth = 64

type msvcDemangler struct {
	s      string
	pos    int
	failed bool
	names  []string // name back-references, at most 10
	params []string // parameter type back-references, at most 10
	depth  int
	steps  int
}

// MSVC undecorates a Microsoft C++ function name as Breakpad's Windows
// dump_syms prints it; false for anything else.
func MSVC(name string) (string, bool) {
	if len(name) < 4 || name[0] != '?' || len(name) > maxInput {
		return "", false
	}
	d := &msvcDemangler{s: name, pos: 1}
	out := d.function()
	if d.failed || d.pos != len(d.s) || out == "" || len(out) > 1<<maxOutputPow {
		return "", false
	}
	return out, true
}

func (d *msvcDemangler) peek() byte {
	if d.pos < len(d.s) {
		return d.s[d.pos]
	}
	return 0
}

func (d *msvcDemangler) next() byte {
	if d.failed || d.pos >= len(d.s) {
		d.failed = true
		return 0
	}
	c := d.s[d.pos]
	d.pos++
	return c
}

func (d *msvcDemangler) eat(prefix string) bool {
	if !d.failed && strings.HasPrefix(d.s[d.pos:], prefix) {
		d.pos += len(prefix)
		return true
	}
	return false
}

func (d *msvcDemangler) enter() bool {
	d.depth++
	d.steps++
	if d.depth > msvcMaxDepth || d.steps > 1<<16 {
		d.failed = true
	}
	return !d.failed
}

func (d *msvcDemangler) leave() { d.depth-- }

func (d *msvcDemangler) remember(list *[]string, s string) {
	if len(*list) < 10 {
		*list = append(*list, s)
	}
}

// function reads a function's qualified name and its type.
func (d *msvcDemangler) function() string {
	name, special := d.qualifiedName(true)
	if d.failed {
		return ""
	}
	c := d.next()
	member := c >= 'A' && c <= 'X'
	if !member && c != 'Y' && c != 'Z' {
		d.failed = true // a variable, a vftable, a thunk
		return ""
	}
	static := strings.IndexByte("CDKLST", c) >= 0
	if member && !static {
		d.pointerModifiers()
		if cv := d.next(); cv < 'A' || cv > 'D' { // this's cv: not printed
			d.failed = true
		}
	}
	params, ret := d.functionType()
	if special == "conversion" {
		name += " " + ret
	}
	if params == "(void)" {
		params = "()"
	}
	return name + params
}

// functionType reads a calling convention, return type, parameters and
// throw specification; it returns "(params)" and the return type.
func (d *msvcDemangler) functionType() (string, string) {
	if cc := d.next(); cc < 'A' || cc > 'Z' {
		d.failed = true
	}
	ret := ""
	if !d.eat("@") { // constructors and destructors return nothing
		d.eat("?A")
		ret = d.typ()
	}
	params := d.paramList()
	if !d.eat("Z") && !d.eat("_E") { // no throw specification, noexcept
		d.failed = true
	}
	return params, ret
}

func (d *msvcDemangler) paramList() string {
	if d.eat("X") {
		return "(void)"
	}
	var list []string
	for !d.failed {
		if d.eat("@") {
			break
		}
		if d.eat("Z") {
			list = append(list, "...")
			break
		}
		if c := d.peek(); c >= '0' && c <= '9' {
			d.pos++
			if int(c-'0') >= len(d.params) {
				d.failed = true
				return ""
			}
			list = append(list, d.params[c-'0'])
			continue
		}
		start := d.pos
		t := d.typ()
		if d.pos-start > 1 {
			d.remember(&d.params, t)
		}
		list = append(list, t)
	}
	return "(" + strings.Join(list, ",") + ")"
}

// qualifiedName reads a name and its scopes up to "@": "a::b::name". The
// first component of a symbol may be a constructor, destructor or
// operator; special says which ("ctor", "dtor", "conversion").
func (d *msvcDemangler) qualifiedName(symbol bool) (string, string) {
	if !d.enter() {
		return "", ""
	}
	defer d.leave()
	first, special := d.unqualified(symbol)
	parts := []string{first}
	for !d.failed && !d.eat("@") {
		s, _ := d.unqualified(false)
		parts = append(parts, s)
	}
	if d.failed {
		return "", ""
	}
	switch special {
	case "ctor", "dtor":
		if len(parts) < 2 {
			d.failed = true
			return "", ""
		}
		class := parts[1]
		if special == "dtor" {
			class = "~" + class
		}
		parts[0] = class
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "::"), special
}

// unqualified reads one component of a name.
func (d *msvcDemangler) unqualified(symbol bool) (string, string) {
	c := d.peek()
	switch {
	case c >= '0' && c <= '9':
		d.pos++
		if int(c-'0') >= len(d.names) {
			d.failed = true
			return "", ""
		}
		return d.names[c-'0'], ""
	case d.eat("?$"):
		// A template is remembered as a scope or a type, not as the
		// symbol's own name.
		s := d.templateName()
		if !symbol {
			d.remember(&d.names, s)
		}
		return s, ""
	case d.eat("?A0x"):
		// An anonymous namespace: ?A0x<hex>@.
		end := strings.IndexByte(d.s[d.pos:], '@')
		if end < 0 {
			d.failed = true
			return "", ""
		}
		d.pos += end + 1
		s := "`anonymous namespace'"
		d.remember(&d.names, s)
		return s, ""
	case symbol && c == '?':
		d.pos++
		return d.operatorName()
	case c == '?' || c == 0:
		d.failed = true
		return "", ""
	}
	end := strings.IndexByte(d.s[d.pos:], '@')
	if end <= 0 {
		d.failed = true
		return "", ""
	}
	s := d.s[d.pos : d.pos+end]
	d.pos += end + 1
	d.remember(&d.names, s)
	return s, ""
}

// templateName reads name<args>@ with its own back-references.
func (d *msvcDemangler) templateName() string {
	if !d.enter() {
		return ""
	}
	defer d.leave()
	outerNames, outerParams := d.names, d.params
	d.names, d.params = nil, nil
	defer func() { d.names, d.params = outerNames, outerParams }()
	var name, special string
	if d.eat("?") {
		name, special = d.operatorName()
		if special != "" {
			d.failed = true // a templated constructor: rare, left alone
			return ""
		}
	} else {
		name, _ = d.unqualified(false)
	}
	var args []string
	for !d.failed && !d.eat("@") {
		args = append(args, d.templateArg())
	}
	s := name + "<" + strings.Join(args, ",")
	if strings.HasSuffix(s, ">") {
		s += " "
	}
	return s + ">"
}

func (d *msvcDemangler) templateArg() string {
	switch {
	case d.eat("$0"):
		return d.number()
	case d.eat("$$V"), d.eat("$$Z"):
		return ""
	case d.eat("$$T"):
		return "std::nullptr_t"
	case d.peek() == '$':
		d.failed = true // pointers to symbols and members, other constants
		return ""
	}
	d.eat("?A")
	return d.typ()
}

// number reads an encoded integer: 0..9 are 1..10, hex digits A..P end
// with @, a leading ? negates.
func (d *msvcDemangler) number() string {
	neg := d.eat("?")
	var v uint64
	c := d.next()
	switch {
	case c >= '0' && c <= '9':
		v = uint64(c-'0') + 1
	case c >= 'A' && c <= 'P' || c == '@':
		d.pos--
		for n := 0; !d.eat("@"); n++ {
			h := d.next()
			if h < 'A' || h > 'P' || n >= 16 {
				d.failed = true
				return ""
			}
			v = v<<4 | uint64(h-'A')
		}
	default:
		d.failed = true
		return ""
	}
	s := strconv.FormatUint(v, 10)
	if neg {
		s = "-" + s
	}
	return s
}

// pointerModifiers skips __ptr64, which UNDNAME_NO_MS_KEYWORDS leaves
// out (Breakpad's x64 names show it). __restrict and __unaligned, whose
// spelling there no oracle shows, fail.
func (d *msvcDemangler) pointerModifiers() bool {
	for d.eat("E") {
	}
	if c := d.peek(); c == 'I' || c == 'F' {
		d.failed = true
	}
	return !d.failed
}

// msvcOperators are the names of ?0 … ?Z and ?_0 … ?_Y.
var msvcOperators = [...]string{
	'2': "operator new", '3': "operator delete", '4': "operator=", '5': "operator>>",
	'6': "operator<<", '7': "operator!", '8': "operator==", '9': "operator!=",
	'A': "operator[]", 'C': "operator->", 'D': "operator*", 'E': "operator++",
	'F': "operator--", 'G': "operator-", 'H': "operator+", 'I': "operator&",
	'J': "operator->*", 'K': "operator/", 'L': "operator%", 'M': "operator<",
	'N': "operator<=", 'O': "operator>", 'P': "operator>=", 'Q': "operator,",
	'R': "operator()", 'S': "operator~", 'T': "operator^", 'U': "operator|",
	'V': "operator&&", 'W': "operator||", 'X': "operator*=", 'Y': "operator+=",
	'Z': "operator-=",
}

var msvcUnderscoreOperators = [...]string{
	'0': "operator/=", '1': "operator%=", '2': "operator>>=", '3': "operator<<=",
	'4': "operator&=", '5': "operator|=", '6': "operator^=", '7': "`vftable'",
	'8': "`vbtable'", '9': "`vcall'", 'A': "`typeof'", 'B': "`local static guard'",
	'D': "`vbase destructor'", 'E': "`vector deleting destructor'",
	'F': "`default constructor closure'", 'G': "`scalar deleting destructor'",
	'H': "`vector constructor iterator'", 'I': "`vector destructor iterator'",
	'J': "`vector vbase constructor iterator'", 'K': "`virtual displacement map'",
	'L': "`eh vector constructor iterator'", 'M': "`eh vector destructor iterator'",
	'N': "`eh vector vbase constructor iterator'", 'O': "`copy constructor closure'",
	'S': "`local vftable'", 'T': "`local vftable constructor closure'",
	'U': "operator new[]", 'V': "operator delete[]", 'X': "`placement delete closure'",
	'Y': "`placement delete[] closure'",
}

// operatorName reads what follows a symbol's first "?": a constructor,
// destructor, conversion or other operator.
func (d *msvcDemangler) operatorName() (string, string) {
	c := d.next()
	switch c {
	case '0':
		return "", "ctor"
	case '1':
		return "", "dtor"
	case 'B':
		return "operator", "conversion"
	case '_':
		c = d.next()
		if c == '_' || int(c) >= len(msvcUnderscoreOperators) || msvcUnderscoreOperators[c] == "" {
			d.failed = true
			return "", ""
		}
		return msvcUnderscoreOperators[c], ""
	}
	if int(c) >= len(msvcOperators) || msvcOperators[c] == "" {
		d.failed = true
		return "", ""
	}
	return msvcOperators[c], ""
}

var msvcPrimitives = [...]string{
	'C': "signed char", 'D': "char", 'E': "unsigned char", 'F': "short",
	'G': "unsigned short", 'H': "int", 'I': "unsigned int", 'J': "long",
	'K': "unsigned long", 'M': "float", 'N': "double", 'O': "long double",
	'X': "void",
}

var msvcExtended = [...]string{
	'J': "__int64", 'K': "unsigned __int64", 'N': "bool", 'W': "wchar_t",
	'S': "char16_t", 'U': "char32_t", 'Q': "char8_t", 'L': "__int128",
	'M': "unsigned __int128",
}

// typ reads a type.
func (d *msvcDemangler) typ() string {
	if !d.enter() {
		return ""
	}
	defer d.leave()
	c := d.next()
	if int(c) < len(msvcPrimitives) && msvcPrimitives[c] != "" {
		return msvcPrimitives[c]
	}
	switch c {
	case '_':
		e := d.next()
		if int(e) < len(msvcExtended) && msvcExtended[e] != "" {
			return msvcExtended[e]
		}
	case 'T', 'U', 'V': // union, struct, class: no keyword (NO_ECSU)
		s, _ := d.qualifiedName(false)
		return s
	case 'W':
		if d.next() == '4' {
			s, _ := d.qualifiedName(false)
			return s
		}
	case 'P', 'Q', 'R', 'S':
		return d.pointer("*", c)
	case 'A', 'B':
		return d.pointer("&", c)
	case '$':
		if d.eat("$Q") {
			return d.pointer("&&", 'A')
		}
		if d.eat("$T") {
			return "std::nullptr_t"
		}
	case '?':
		return d.cvType()
	}
	d.failed = true
	return ""
}

// pointer reads what a pointer or reference points to: its cv and type,
// or a function type after 6. c is the pointer's own code (Q const, R
// volatile, S both).
func (d *msvcDemangler) pointer(op string, c byte) string {
	return d.pointerTo(op, c, 'A', false)
}

// pointerTo reads a pointer whose own cv is that of c merged with cv,
// the cv its pointer gives its pointee; nested is a pointer's pointee.
func (d *msvcDemangler) pointerTo(op string, c, cv byte, nested bool) string {
	if !d.enter() {
		return ""
	}
	defer d.leave()
	if !d.pointerModifiers() {
		return ""
	}
	self := cvSuffix(mergeCV(pointerCV(c), cv))
	if d.eat("6") {
		if nested {
			d.failed = true // a pointer to a function pointer: rare, left alone
			return ""
		}
		params, ret := d.functionType()
		return ret + " (" + op + self + ")" + params
	}
	pointee := d.next()
	if pointee < 'A' || pointee > 'D' {
		d.failed = true
		return ""
	}
	// A pointer to a pointer: the pointee's cv is the inner pointer's own.
	if k := d.peek(); k == 'P' || k == 'Q' || k == 'R' || k == 'S' {
		d.pos++
		return d.pointerTo("*", k, pointee, true) + " " + op + self
	}
	return d.typ() + cvSuffix(pointee) + " " + op + self
}

// pointerCV is the cv a pointer code gives the pointer itself, as a cv
// letter (A none, B const, C volatile, D both).
func pointerCV(c byte) byte {
	switch c {
	case 'Q':
		return 'B'
	case 'R':
		return 'C'
	case 'S':
		return 'D'
	}
	return 'A'
}

func mergeCV(a, b byte) byte { return 'A' + ((a - 'A') | (b - 'A')) }

func cvSuffix(cv byte) string {
	switch cv {
	case 'B':
		return " const"
	case 'C':
		return " volatile"
	case 'D':
		return " const volatile"
	}
	return ""
}

// cvType reads ?<cv><type>: a type with its own cv, as in template
// arguments.
func (d *msvcDemangler) cvType() string {
	d.pointerModifiers()
	cv := d.next()
	if cv < 'A' || cv > 'D' {
		d.failed = true
		return ""
	}
	return d.typ() + cvSuffix(cv)
}
