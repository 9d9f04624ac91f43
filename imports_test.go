package stackwalk_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The commands read dumps only through the model (docs/architecture.md):
// no product file under cmd/ imports a package that reads dumps (minidump,
// microdump, coredump), but the one that prints a file unprocessed
// (--dump: Breakpad's minidump_dump).
func TestCommandsImportNoDumpReader(t *testing.T) {
	allowed := map[string]bool{
		"cmd/minidump-stackwalk/dumpflag.go " + module + "/minidump":          true,
		"cmd/minidump-stackwalk/dumpflag.go " + module + "/minidump/dumptext": true,
	}
	files, err := filepath.Glob("cmd/*/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no command sources: %v", err)
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
			p, _ := strconv.Unquote(im.Path.Value)
			reader := false
			for _, r := range []string{"/minidump", "/microdump", "/coredump"} {
				reader = reader || p == module+r || strings.HasPrefix(p, module+r+"/")
			}
			if reader && !allowed[filepath.ToSlash(path)+" "+p] {
				t.Errorf("%s imports %s: a command reads dumps through stackwalk.Open and the model", path, p)
			}
		}
	}
}
