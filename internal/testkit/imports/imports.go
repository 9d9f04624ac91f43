// Package imports lists the imports of a package's product files, for the
// tests that keep the house's boundaries (docs/architecture.md): the
// commands import no dump reader nor the walker, the printers no walker.
package imports

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Import is one import of one product file.
type Import struct {
	File string // slash-separated, as the pattern named it
	Path string // the imported package's path
}

// Of returns the imports of the product files (not _test.go) that the
// glob pattern matches, relative to the test's directory. It fails the
// test when the pattern matches no file or a file does not parse.
func Of(t testing.TB, pattern string) []Import {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources match %s: %v", pattern, err)
	}
	fset := token.NewFileSet()
	var out []Import
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			p, err := strconv.Unquote(im.Path.Value)
			if err != nil {
				t.Fatalf("%s: import %s: %v", path, im.Path.Value, err)
			}
			out = append(out, Import{File: filepath.ToSlash(path), Path: p})
		}
	}
	return out
}

// Under reports whether path is the package pkg or one below it.
func Under(path, pkg string) bool { return path == pkg || strings.HasPrefix(path, pkg+"/") }
