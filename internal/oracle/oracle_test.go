package oracle

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirFromEnvironment(t *testing.T) {
	t.Setenv(EnvDir, "/some/where")
	if got := Dir(); got != "/some/where" {
		t.Errorf("Dir() = %q with %s set; want /some/where", got, EnvDir)
	}
	t.Setenv(EnvDir, "")
	if got := Dir(); got != DefaultDir {
		t.Errorf("Dir() = %q with %s empty; want %q", got, EnvDir, DefaultDir)
	}
}

func TestLookup(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDir, dir)
	if err := os.WriteFile(filepath.Join(dir, Stackwalk), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, Dump), []byte("not executable"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, ok := Lookup(Stackwalk); !ok || p != filepath.Join(dir, Stackwalk) {
		t.Errorf("Lookup(%s) = %q, %v; want %q, true", Stackwalk, p, ok, filepath.Join(dir, Stackwalk))
	}
	if _, ok := Lookup(Dump); ok {
		t.Errorf("Lookup(%s) found a file without execute permission", Dump)
	}
	if _, ok := Lookup(DumpSyms); ok {
		t.Errorf("Lookup(%s) found a missing file", DumpSyms)
	}
}

func TestRequireSkipsWhenAbsent(t *testing.T) {
	t.Setenv(EnvDir, t.TempDir())
	var skipped bool
	t.Run("absent", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Require(t, Stackwalk)
		t.Error("Require returned for a missing binary")
	})
	if !skipped {
		t.Error("Require did not skip the test when the binary is absent")
	}
}
