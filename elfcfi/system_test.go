package elfcfi

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestSystemFilesMatchReadelf compares our rows with readelf's, run live, on
// the files the environment variable ELFCFI_SYSTEM_FILES lists (a glob, e.g.
// "/usr/lib/x86_64-linux-gnu/*.so*"); skipped when it is not set, as such
// files are not part of the repository.
func TestSystemFilesMatchReadelf(t *testing.T) {
	glob := os.Getenv("ELFCFI_SYSTEM_FILES")
	if glob == "" {
		t.Skip("ELFCFI_SYSTEM_FILES not set")
	}
	readelf, err := exec.LookPath("readelf")
	if err != nil {
		t.Skip("no readelf")
	}
	files, _ := filepath.Glob(glob)
	total := 0
	for _, path := range files {
		if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		f, err := elf.Open(path)
		if err != nil {
			continue
		}
		// readelf exits 1 after warnings about other sections; its
		// listing is still complete.
		out, err := exec.Command(readelf, "--debug-dump=frames-interp", path).Output()
		if err != nil && len(out) == 0 {
			t.Errorf("%s: readelf: %v", path, err)
			f.Close()
			continue
		}
		tables, err := FromELF(f)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			f.Close()
			continue
		}
		oracle := parseFramesInterp(t, out)
		for name, sec := range map[string]*Section{".eh_frame": tables.EHFrame, ".debug_frame": tables.DebugFrame} {
			if sec == nil {
				continue
			}
			fdes, err := sec.Entries()
			if err != nil {
				t.Errorf("%s %s: %v", path, name, err)
			}
			for _, fde := range fdes {
				if w := oracle[name][fde.Offset]; w != nil && w.begin != w.end {
					compareFDE(t, f.Machine, fde, w)
					total++
				}
			}
		}
		f.Close()
	}
	t.Logf("%d files, %d FDEs equal to readelf's", len(files), total)
}
