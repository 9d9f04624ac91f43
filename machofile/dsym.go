package machofile

import (
	"os"
	"path/filepath"
	"strings"
)

// DSYMFile returns the file holding the DWARF of a dSYM bundle: for path a
// bundle (X.dSYM), its Contents/Resources/DWARF/X (else the directory's
// only file); for path a binary, that of path+".dSYM" beside it. "" when
// there is none.
func DSYMFile(path string) string {
	bundle := path
	if !strings.HasSuffix(strings.TrimSuffix(path, "/"), ".dSYM") {
		bundle = path + ".dSYM"
	}
	bundle = strings.TrimSuffix(bundle, "/")
	dir := filepath.Join(bundle, "Contents", "Resources", "DWARF")
	base := strings.TrimSuffix(filepath.Base(bundle), ".dSYM")
	if st, err := os.Stat(filepath.Join(dir, base)); err == nil && st.Mode().IsRegular() {
		return filepath.Join(dir, base)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			files = append(files, e.Name())
		}
	}
	if len(files) != 1 {
		return ""
	}
	return filepath.Join(dir, files[0])
}
