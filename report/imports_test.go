package report

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/imports"
)

// TestPrintersImportNoWalker keeps the model's boundary (docs/design.md):
// the printers read processor's own frames and modules, so no product file
// of report imports the walker or one of its packages.
func TestPrintersImportNoWalker(t *testing.T) {
	const walker = "github.com/minidump-stackwalk/minidump-stackwalk/walker"
	for _, im := range imports.Of(t, "*.go") {
		if imports.Under(im.Path, walker) {
			t.Errorf("%s imports %s: printers read processor's Frame and Module", im.File, im.Path)
		}
	}
}
