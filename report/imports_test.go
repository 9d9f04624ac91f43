package report

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPrintersImportNoWalker keeps the model's boundary (docs/design.md):
// the printers read processor's own frames and modules, so no product file
// of report imports the walker or one of its packages.
func TestPrintersImportNoWalker(t *testing.T) {
	const walker = "github.com/minidump-stackwalk/minidump-stackwalk/walker"
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources: %v", err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == walker || strings.HasPrefix(p, walker+"/") {
				t.Errorf("%s imports %s: printers read processor's Frame and Module", path, p)
			}
		}
	}
}
