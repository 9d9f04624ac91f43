package dwarfsyms

import "github.com/ianlancetaylor/demangle"

// Demangle demangles an Itanium C++ name as __cxa_demangle prints it, which
// Google's dump_syms uses: as demangle.ToString does, except where GNU's
// demangler names a constructor or destructor after the last source name
// it read: an inheriting constructor (C1I/C2I <base>) after its base class,
// and one of an unnamed type ({unnamed type#1}) after the enclosing name.
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
