package dwarfsyms

import (
	"reflect"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// Demangle demangles an Itanium C++ name as __cxa_demangle prints it, which
// Google's dump_syms uses: as demangle.ToString does, except where GNU's
// demangler names a constructor or destructor after the last source name
// it read: an inheriting constructor (C1I/C2I <base>) after its base class,
// and one of an unnamed type ({unnamed type#1}) after the enclosing name;
// and where a template argument list ends with an empty pack (see
// closeAfterEmptyPack).
func Demangle(name string, opts ...demangle.Option) (string, error) {
	a, err := demangle.ToAST(name, opts...)
	if err != nil {
		return "", err
	}
	a.Traverse(func(n demangle.AST) bool {
		switch n := n.(type) {
		case *demangle.Constructor:
			if n.Base != nil {
				if last := lastName(n.Base); last != nil {
					n.Name = last
				}
			}
		case *demangle.Qualified:
			// Scope::{unnamed type#N}::{unnamed type#N}() or ~...
			var name *demangle.AST
			switch c := n.Name.(type) {
			case *demangle.Constructor:
				name = &c.Name
			case *demangle.Destructor:
				name = &c.Name
			}
			if name == nil {
				break
			}
			if _, unnamed := (*name).(*demangle.UnnamedType); unnamed {
				if last := lastName(n.Scope); last != nil {
					*name = last
				}
			}
		}
		return true
	})
	a = closeAfterEmptyPack(a, opts)
	return demangle.ASTToString(a, opts...), nil
}

// lastName is the unqualified name of a class type, without template
// arguments.
func lastName(a demangle.AST) demangle.AST {
	for i := 0; i < 64; i++ {
		switch t := a.(type) {
		case *demangle.Template:
			a = t.Name
		case *demangle.Qualified:
			if _, unnamed := t.Name.(*demangle.UnnamedType); unnamed {
				a = t.Scope // GNU's last name skips unnamed types
				continue
			}
			a = t.Name
		case *demangle.Name:
			return t
		default:
			return nil
		}
	}
	return nil
}

// closeAfterEmptyPack rewrites, in a, each template with an empty argument
// (an empty pack) and other arguments into its text as __cxa_demangle
// prints it. GNU's printer writes an argument list as its first argument,
// then ", " and the rest, taking the ", " back when the rest printed
// nothing. So an empty argument before a non-empty one keeps its commas
// ("f<int, , int>"), where demangle.ToString leaves it out; and after
// trailing empty arguments the "last character written" stays the space
// of the ", " taken back, so the check that separates two closing angle
// brackets does not see the inner '>' ("A<B<C>>", not "A<B<C> >").
// A template becomes a demangle.Name: the printer reaches a Template only
// through its print method, so the text is all that counts.
func closeAfterEmptyPack(a demangle.AST, opts []demangle.Option) demangle.AST {
	for _, o := range opts {
		if o == demangle.NoTemplateParams {
			return a
		}
	}
	f := packFixer{opts: opts, done: map[demangle.AST]bool{}, text: map[*demangle.Template]demangle.AST{}}
	if r := f.replacement(a); r != nil {
		return r
	}
	return a
}

type packFixer struct {
	opts []demangle.Option
	done map[demangle.AST]bool
	text map[*demangle.Template]demangle.AST // nil: kept as it is
}

// maxFixText bounds the text of one rewritten template: the texts of
// nested templates add up.
const maxFixText = 1 << 16

// maxFixNodes bounds the nodes visited: substitutions share subtrees, and
// done visits each once.
const maxFixNodes = 1 << 16

// fix rewrites a's children, after their own children.
func (f *packFixer) fix(a demangle.AST) {
	if a == nil || f.done[a] || len(f.done) >= maxFixNodes {
		return
	}
	f.done[a] = true
	if _, ok := a.(*demangle.PackExpansion); ok {
		// Its base prints once per pack element, with the element
		// chosen by the printer's state: no text of its own.
		return
	}
	v := reflect.ValueOf(a)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return
	}
	v = v.Elem()
	astType := reflect.TypeOf((*demangle.AST)(nil)).Elem()
	for i := 0; i < v.NumField(); i++ {
		fv := v.Field(i)
		switch {
		case fv.Type() == astType:
			f.fixField(fv)
		case fv.Kind() == reflect.Slice && fv.Type().Elem() == astType:
			for j := 0; j < fv.Len(); j++ {
				f.fixField(fv.Index(j))
			}
		}
	}
}

// fixField fixes the node in fv, an AST field or slice element, and
// replaces it there if it needs its own text.
func (f *packFixer) fixField(fv reflect.Value) {
	if fv.IsNil() || !fv.CanSet() {
		return
	}
	if r := f.replacement(fv.Interface().(demangle.AST)); r != nil {
		fv.Set(reflect.ValueOf(&r).Elem())
	}
}

// replacement fixes a and returns what replaces it, or nil.
func (f *packFixer) replacement(a demangle.AST) demangle.AST {
	f.fix(a)
	t, ok := a.(*demangle.Template)
	if !ok {
		return nil
	}
	if r, seen := f.text[t]; seen {
		return r
	}
	var r demangle.AST
	if text, ok := f.gnuText(t); ok {
		r = &demangle.Name{Name: text}
	}
	f.text[t] = r
	return r
}

// gnuText is t's text as GNU prints it, when that differs from demangle's
// because t has an empty argument.
func (f *packFixer) gnuText(t *demangle.Template) (string, bool) {
	last := -1 // the last argument that prints something
	anyEmpty := false
	for i, arg := range t.Args {
		if emptyArg(arg) {
			anyEmpty = true
		} else {
			last = i
		}
	}
	if !anyEmpty || len(t.Args) < 2 {
		return "", false
	}
	var b strings.Builder
	b.WriteString(demangle.ASTToString(t.Name, f.opts...))
	if strings.HasSuffix(b.String(), "<") {
		b.WriteByte(' ') // operator<
	}
	b.WriteByte('<')
	for i := 0; i <= last; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(demangle.ASTToString(t.Args[i], f.opts...))
	}
	// After trailing empty arguments GNU's last character is a space.
	if last == len(t.Args)-1 && strings.HasSuffix(b.String(), ">") {
		b.WriteByte(' ')
	}
	b.WriteByte('>')
	if b.Len() > maxFixText {
		return "", false
	}
	return b.String(), true
}

// emptyArg reports whether a template argument prints nothing, as
// demangle's printer decides it.
func emptyArg(a demangle.AST) bool {
	switch a := a.(type) {
	case *demangle.ArgumentPack:
		for _, b := range a.Args {
			if !emptyArg(b) {
				return false
			}
		}
		return true
	case *demangle.ExprList:
		return len(a.Exprs) == 0
	case *demangle.PackExpansion:
		return a.Pack != nil && emptyArg(a.Base)
	}
	return false
}
