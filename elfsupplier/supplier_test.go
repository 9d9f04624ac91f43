package elfsupplier

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/elfsym"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// TestRefusals checks a module whose file under the root has another build
// id gets no symbols, and the error says why.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	other := corpus.ReadZstd(t, "../elfcfi/testdata/arm-eh.zst")
	if err := os.WriteFile(filepath.Join(dir, "crashdemo"), other, 0o644); err != nil {
		t.Fatal(err)
	}
	sup := New(context.Background(), &elfsym.Locator{Roots: []string{dir}})
	_, err := sup.Symbols(symfile.ModuleKey{CodeFile: "/bin/crashdemo", CodeID: "E7D5C19730CDB450FA08C2632E99C7BAB6400CD6"})
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, symfile.ErrNotFound) || !strings.Contains(err.Error(), "build id") {
		t.Fatalf("error %v, want a NotFoundError naming the build id", err)
	}
	if _, err := sup.Symbols(symfile.ModuleKey{CodeFile: "/bin/x", CodeID: "not hex"}); !errors.Is(err, symfile.ErrNotFound) {
		t.Errorf("bad code id: %v", err)
	}
}

// TestCodeBudget checks that a supplier whose modules have kept
// MaxTotalCodeBytes of code gives the next module its .sym but no code.
func TestCodeBudget(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crashdemo"), corpus.ReadZstd(t, "../testdata/cores/arm-crashdemo.zst"), 0o644); err != nil {
		t.Fatal(err)
	}
	key := symfile.ModuleKey{CodeFile: "/bin/crashdemo", CodeID: "E7D5C19730CDB450FA08C2632E99C7BAB6400CD6"}
	full := New(context.Background(), &elfsym.Locator{Roots: []string{dir}})
	full.codeBytes = MaxTotalCodeBytes - 1000
	if f, err := full.Symbols(key); err != nil || f == nil {
		t.Fatalf("symbols: %v", err)
	}
	if nm := full.Native(key); nm != nil {
		t.Errorf("a module past the code budget has code: %v", nm)
	}
	fresh := New(context.Background(), &elfsym.Locator{Roots: []string{dir}})
	if nm := fresh.Native(key); nm == nil || !nm.IsCode(0x1cc) {
		t.Errorf("within the budget: no code at abort (%v)", nm)
	}
	if fresh.codeBytes == 0 || fresh.codeBytes > MaxCodeBytes {
		t.Errorf("code counted: %d bytes", fresh.codeBytes)
	}
}
