package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	dumpinput "github.com/minidump-stackwalk/minidump-stackwalk/internal/input"
)

// maxStdinPath bounds one path read from stdin.
const maxStdinPath = 1 << 16

// findInputs expands the batch command's PATH arguments: a file is an
// input as it is (whatever its content: a bad one gets its error line), a
// directory gives the dumps under it, recognised by content, and "-" the
// paths read from stdin. Unreadable directories are reported on stderr
// and skipped.
func findInputs(args []string, stdin io.Reader, nul bool, stderr io.Writer) ([]string, error) {
	var out []string
	for _, a := range args {
		if a == "-" {
			paths, err := readPathList(stdin, nul)
			if err != nil {
				return nil, fmt.Errorf("reading paths from stdin: %w", err)
			}
			out = append(out, paths...)
			continue
		}
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			out = append(out, a) // processing reports what is wrong with it
			continue
		}
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				fmt.Fprintf(stderr, "minidump-stackwalk: batch: %v (skipped)\n", err)
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && looksLikeDump(p) {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readPathList reads paths one per line (or NUL-separated), skipping empty ones.
func readPathList(r io.Reader, nul bool) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxStdinPath)
	if nul {
		sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
			if i := bytes.IndexByte(data, 0); i >= 0 {
				return i + 1, data[:i], nil
			}
			if atEOF && len(data) > 0 {
				return len(data), data, nil
			}
			return 0, nil, nil
		})
	}
	var out []string
	for sc.Scan() {
		p := sc.Text()
		if !nul {
			p = string(bytes.TrimRight([]byte(p), "\r"))
		}
		if p != "" {
			out = append(out, p)
		}
	}
	return out, sc.Err()
}

// looksLikeDump reports whether a file found in a directory is an input:
// a minidump, an ELF core or a microdump, plain or compressed, told by its
// first bytes (internal/input.SniffFile).
func looksLikeDump(path string) bool {
	kind, _, err := dumpinput.SniffFile(path)
	return err == nil && kind.Processable()
}
