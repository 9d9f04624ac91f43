package stackwalk_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"testing"
)

// maxFunctionLines is the house's limit on a function's length, its
// declaration and closing brace included (docs: functions short, never over
// 120 lines).
const maxFunctionLines = 120

// longFunctions are the functions still over the limit, keyed
// "file:Func" (methods "file:Type.Method"), with their length when listed.
// Remove an entry when its function is split (the test logs those, and
// does not fail: another branch may have split it); add none.
var longFunctions = map[string]int{
	// A test generator: one dump's frames, registers and memory, in the
	// order the generated dump lays them out (gocyclo lists it in
	// .ci/lint-allow for the same reason).
	"internal/testkit/difftest/gen.go:gen.build": 258,
}

// TestFunctionLength keeps every function of the repository, tests
// included, under maxFunctionLines, but for generated files and the listed
// ones; .ci/run's gocyclo does the same for cyclomatic complexity.
func TestFunctionLength(t *testing.T) {
	fset := token.NewFileSet()
	seen := map[string]bool{}
	checked := 0
	err := walkGoFiles(func(path string) error {
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if generated(src) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			checked++
			key := filepath.ToSlash(path) + ":" + funcName(fn)
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			listed, ok := longFunctions[key]
			switch {
			case ok:
				seen[key] = true
				if lines <= maxFunctionLines {
					t.Logf("%s is %d lines now: remove it from longFunctions", key, lines)
				} else if lines > listed {
					t.Errorf("%s grew from %d to %d lines (the limit is %d)", key, listed, lines, maxFunctionLines)
				}
			case lines > maxFunctionLines:
				t.Errorf("%s is %d lines, over %d: split it", key, lines, maxFunctionLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 1000 {
		t.Fatalf("only %d functions found", checked)
	}
	for key := range longFunctions {
		if !seen[key] {
			t.Logf("longFunctions lists %s, which no longer exists: remove it", key)
		}
	}
}

// generated reports a file marked as Go's generated files are.
func generated(src []byte) bool {
	for _, line := range bytes.Split(src, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("package ")) {
			return false
		}
		if bytes.HasPrefix(line, []byte("// Code generated ")) && bytes.HasSuffix(line, []byte(" DO NOT EDIT.")) {
			return true
		}
	}
	return false
}

// funcName is a function's name, or Type.Method for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
