package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	dumpinput "github.com/minidump-stackwalk/minidump-stackwalk/internal/input"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"
)

// maxStdinPath bounds one path read from stdin.
const maxStdinPath = 1 << 16

// Why a path found in a directory scan is not an input: the summary's
// "skipped" counts them by these reasons.
const (
	skipNotDump    = "not a dump"
	skipSymbolFile = "symbol file"
	skipNotRegular = "not a regular file"
	// The skips below are problems: the run exits with status 1.
	skipUnreadableDir = "unreadable directory"
	skipDirLink       = "symbolic link to a directory"
)

// inputScan is what findInputs found: the inputs, and what it passed over.
type inputScan struct {
	paths []string
	// skipped counts the paths of this shard passed over, by reason
	// (skipNotDump, ...), so that the shards' counts add up.
	skipped map[string]int
	// mine reports whether a path belongs to this run's shard.
	mine func(path string) bool
	// problems counts what was skipped for an error (an unreadable
	// directory, a link to a directory, a directory without a dump): the
	// run's exit status is then 1.
	problems int
	// jobs is how many files are sniffed at once (-j).
	jobs int
}

// findInputs expands the batch command's PATH arguments: a file is an
// input as it is (whatever its content: a bad one gets its error line), a
// directory gives the dumps under it, recognised by content, and "-" the
// paths read from stdin. In a directory, a symbolic link to a file is
// followed (the path keeps the link's name); one to a directory is not
// (no loops, no leaving the tree) and is reported; a file that cannot be
// read is an input, so that its result line says why. Every skip with a
// problem is reported on stderr. A symbol file given as a PATH, or a
// directory holding symbol files and no dump, is a usage error pointing
// to --symbols-path: walking without the symbols meant is worse than
// stopping. A directory's files are sniffed jobs at a time.
func findInputs(args []string, stdin io.Reader, nul bool, jobs int, mine func(string) bool, stderr io.Writer) (*inputScan, error) {
	scan := &inputScan{skipped: map[string]int{}, mine: mine, jobs: jobs}
	for _, a := range args {
		if a == "-" {
			paths, err := readPathList(stdin, nul)
			if err != nil {
				return nil, fmt.Errorf("reading paths from stdin: %w", err)
			}
			scan.paths = append(scan.paths, paths...)
			continue
		}
		st, err := os.Stat(a)
		switch {
		case err == nil && st.IsDir():
			if err := scan.walkDir(a, stderr); err != nil {
				return nil, err
			}
		case err == nil && isSymbolFile(a):
			return nil, usageError{fmt.Errorf("batch: %s is a symbol file, not a dump: give symbol files and directories with --symbols-path", textsafe.Escape(a))}
		default:
			scan.paths = append(scan.paths, a) // processing reports what is wrong with it
		}
	}
	return scan, nil
}

// foundFile is a file of a directory scan, in the walk's order: a
// regular file, whose verdict classify gives, or a dangling link (an
// input).
type foundFile struct {
	path    string
	sniff   bool
	verdict string // classify's
}

// walkDir adds the dumps under dir.
func (scan *inputScan) walkDir(dir string, stderr io.Writer) error {
	before := len(scan.paths)
	symbolFiles := 0
	var found []foundFile
	skip := func(p, reason string, problem bool) {
		if scan.mine(p) {
			scan.skipped[reason]++
		}
		if problem {
			scan.problems++
			fmt.Fprintf(stderr, "minidump-stackwalk: batch: %s: %s (skipped)\n", textsafe.Escape(p), reason)
		}
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(stderr, "minidump-stackwalk: batch: %s (skipped)\n", textsafe.Escape(err.Error()))
			if scan.mine(p) {
				scan.skipped[skipUnreadableDir]++
			}
			scan.problems++
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		mode := d.Type()
		if mode&fs.ModeSymlink != 0 {
			st, err := os.Stat(p)
			switch {
			case err != nil:
				found = append(found, foundFile{path: p}) // a dangling link: its result says so
				return nil
			case st.IsDir():
				skip(p, skipDirLink, true)
				return nil
			}
			mode = st.Mode().Type()
		}
		switch {
		case d.IsDir():
		case !mode.IsRegular():
			skip(p, skipNotRegular, false)
		default:
			found = append(found, foundFile{path: p, sniff: true})
		}
		return nil
	})
	if err != nil {
		return err
	}
	scan.classifyAll(found)
	for _, f := range found {
		switch f.verdict {
		case skipSymbolFile:
			symbolFiles++
			skip(f.path, skipSymbolFile, false)
		case skipNotDump:
			skip(f.path, skipNotDump, false)
		default:
			scan.paths = append(scan.paths, f.path)
		}
	}
	if len(scan.paths) > before {
		return nil
	}
	if symbolFiles > 0 {
		return usageError{fmt.Errorf("batch: %s holds %d symbol files and no dump: give symbol directories with --symbols-path "+
			"(minidump-stackwalk batch --symbols-path %s DUMPS...)", textsafe.Escape(dir), symbolFiles, textsafe.Escape(dir))}
	}
	scan.problems++
	fmt.Fprintf(stderr, "minidump-stackwalk: batch: %s: no dump found\n", textsafe.Escape(dir))
	return nil
}

// classifyAll sets the verdict of each file of found to sniff, scan.jobs
// files at a time (GOMAXPROCS at most: the sniffs are the kernel's work,
// and each holds a file open). The sniffs are system calls (an open, a
// read of 512 bytes, a close: about 15 us a file) made before any dump is
// processed, 30 ms for 2,000 files: -j sniffing goroutines make that part
// of a run scale with -j as the walks do (issue 29). The verdicts go into
// found's own entries, so the inputs keep the walk's order.
func (scan *inputScan) classifyAll(found []foundFile) {
	var next atomic.Int64
	work := func() {
		for i := int(next.Add(1) - 1); i < len(found); i = int(next.Add(1) - 1) {
			if found[i].sniff {
				found[i].verdict = scan.classify(found[i].path)
			}
		}
	}
	var wg sync.WaitGroup
	for range min(scan.jobs, runtime.GOMAXPROCS(0), len(found)/minSniffsPerJob) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// minSniffsPerJob: a directory of fewer files per job is sniffed by fewer
// goroutines; a goroutine's start is worth it for tens of files.
const minSniffsPerJob = 32

// classify tells a regular file found in a directory: "" for an input,
// else skipSymbolFile or skipNotDump. A file named as a symbol file is
// sniffed as such first (isSymbolFile); any other is opened once when it
// is a minidump, an ELF core or compressed (none of which starts with
// "MODULE "), and a second time only to tell a symbol file without the
// name from text that is no dump.
func (scan *inputScan) classify(p string) string {
	if hasSymbolFileName(p) {
		if isSymbolFile(p) {
			return skipSymbolFile
		}
		if isInput(p) {
			return ""
		}
		return skipNotDump
	}
	kind, compression, err := dumpinput.SniffFile(p)
	switch {
	case err == nil && kind.Processable() && (kind != dumpinput.Microdump || compression != dumpinput.Unknown):
		return ""
	case isSymbolFile(p):
		return skipSymbolFile
	case err == nil && kind.Processable(), errors.As(err, new(*fs.PathError)):
		return "" // isInput's answer, from the same sniff
	}
	return skipNotDump
}

// hasSymbolFileName reports whether path is named as a symbol file.
func hasSymbolFileName(path string) bool {
	for _, ext := range []string{".sym", ".sym.gz", ".sym.zst", ".sym.xz"} {
		if strings.HasSuffix(strings.ToLower(path), ext) {
			return true
		}
	}
	return false
}

// isInput reports whether a file found in a directory is an input: a
// minidump, an ELF core or a microdump, plain or compressed, told by its
// first bytes (internal/input.SniffFile), or a file that cannot be read
// (its result line says why, rather than a silent skip).
func isInput(path string) bool {
	kind, _, err := dumpinput.SniffFile(path)
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return true
	}
	return err == nil && kind.Processable()
}

// isSymbolFile reports whether path is a Breakpad symbol file, by its name
// (.sym, also compressed) or its first line (MODULE); a dump named .sym is
// a dump.
func isSymbolFile(path string) bool {
	if hasSymbolFileName(path) {
		kind, _, err := dumpinput.SniffFile(path)
		return err != nil || !kind.Processable()
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len("MODULE "))
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == "MODULE "
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
