package stackwalk_test

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/imports"
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
	for _, im := range imports.Of(t, "cmd/*/*.go") {
		reader := false
		for _, r := range []string{"/minidump", "/microdump", "/coredump"} {
			reader = reader || imports.Under(im.Path, module+r)
		}
		if reader && !allowed[im.File+" "+im.Path] {
			t.Errorf("%s imports %s: a command reads dumps through stackwalk.Open and the model", im.File, im.Path)
		}
	}
}

// The command parses flags and picks a printer (docs/architecture.md): the
// walk's options reach it through processor (Mode, NativeModule, Rule), so
// no product file under cmd/ imports the walker or one of its packages.
func TestCommandsImportNoWalker(t *testing.T) {
	for _, im := range imports.Of(t, "cmd/*/*.go") {
		if imports.Under(im.Path, module+"/walker") {
			t.Errorf("%s imports %s: a command sets the walk through processor's options", im.File, im.Path)
		}
	}
}
