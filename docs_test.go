package stackwalk_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/minidump-stackwalk/minidump-stackwalk"

// walkGoFiles calls fn with the path of each Go file of the repository,
// outside testdata and hidden or underscored directories.
func walkGoFiles(fn func(path string) error) error {
	return filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		return fn(path)
	})
}

// goPackages returns the repository's package directories (slash-separated,
// "." for the root) with their non-test files' imports.
func goPackages(t *testing.T) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	fset := token.NewFileSet()
	err := walkGoFiles(func(path string) error {
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		imps := pkgs[dir]
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			imps = append(imps, p)
		}
		pkgs[dir] = imps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// docs/architecture.md names every package (in backquotes, or in a
// `dir/{a,b}` group), and product code imports no test machinery.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([^`\\s]+)`").FindAllStringSubmatch(string(doc), -1) {
		name := m[1]
		if i := strings.Index(name, "/{"); i >= 0 && strings.HasSuffix(name, "}") {
			for _, leaf := range strings.Split(name[i+2:len(name)-1], ",") {
				named[name[:i]+"/"+leaf] = true
			}
		}
		named[name] = true
	}
	pkgs := goPackages(t)
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages", len(pkgs))
	}
	for dir, imps := range pkgs {
		if !named[dir] {
			t.Errorf("docs/architecture.md does not name package %s (add it to \"Every package\" in backquotes)", dir)
		}
		if strings.HasPrefix(dir, "internal/testkit/") || strings.HasPrefix(dir, "scripts/") {
			continue
		}
		for _, p := range imps {
			if strings.HasPrefix(p, module+"/internal/testkit/") {
				t.Errorf("product package %s imports test machinery %s", dir, p)
			}
		}
	}
}

// The house's floors: internal/'s product packages are helpers below the
// packages that read and walk dumps, so they import none of those, only
// one another (and the standard library and dependencies). The exceptions
// are the core-to-minidump converter's parts, which stand on the readers
// and the model they convert between, and internal/tools, programs that
// use the library.
var convertsBetweenFormats = map[string]bool{
	"internal/core2mdcli": true, // the converter's command: coredump in, minidump out
	"internal/coreconv":   true, // a core's contents as minidump streams
	"internal/synth":      true, // writes minidump's structures (minidump.Context, minidump.Arch)
}

// TestHouseOrder: no import runs back up the house, from a helper under
// internal/ to a package above it.
func TestHouseOrder(t *testing.T) {
	for dir, imps := range goPackages(t) {
		if !strings.HasPrefix(dir, "internal/") || strings.HasPrefix(dir, "internal/testkit/") ||
			strings.HasPrefix(dir, "internal/tools/") || convertsBetweenFormats[dir] {
			continue
		}
		for _, p := range imps {
			if (p == module || strings.HasPrefix(p, module+"/")) && !strings.HasPrefix(p, module+"/internal/") {
				t.Errorf("helper %s imports %s, a package above it", dir, strings.TrimPrefix(p, module+"/"))
			}
		}
	}
}
