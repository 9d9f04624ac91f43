package main

// rust-minidump's --dump: print every stream of the minidump as Breakpad's
// minidump_dump does (package dumptext) instead of walking its stacks. The
// dump is not processed, so symbol paths are accepted and unused; the
// output goes to stdout or --output-file. The dump may come from standard
// input ("-") and be gzip-, zstd- or xz-compressed.

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	dumpinput "github.com/minidump-stackwalk/minidump-stackwalk/internal/input" // package main has its own input
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump/dumptext"
)

// dumpFlag is the --dump flag group.
type dumpFlag struct {
	on bool
	fs *pflag.FlagSet
}

func (d *dumpFlag) AddFlags(fs *pflag.FlagSet) {
	d.fs = fs
	fs.BoolVar(&d.on, "dump", false, "print every stream of the minidump (header, directory, threads with contexts and\n"+
		"stacks, modules, memory, system, misc, Breakpad and Crashpad info, Linux streams) as\n"+
		"Breakpad's minidump_dump does, instead of its stacks (rust-minidump's --dump)")
}

func (d *dumpFlag) Active() bool { return d.on }

// outputFlags select another output than --dump's.
var outputFlags = []string{"machine-readable", "stack-contents", "crashed-thread-only", "thread", "brief",
	"dump-stack", "format", "json", "human", "cyborg", "pretty"}

func (d *dumpFlag) Check(o *options) error {
	for _, n := range outputFlags {
		if f := d.fs.Lookup(n); f != nil && f.Changed {
			name := "--" + n
			if f.Shorthand != "" {
				name = "-" + f.Shorthand
			}
			return fmt.Errorf("--dump prints the dump's raw streams; %s selects another output", name)
		}
	}
	return nil
}

// processRawDump handles --dump: when group is the --dump flag it prints
// the dump named in o and returns the exit status and true.
func processRawDump(o *options, group flagGroup, stdout, stderr io.Writer) (int, bool) {
	if _, ok := group.(*dumpFlag); !ok {
		return 0, false
	}
	dump, in, err := openRawDump(o.dumpPath, o.stdin)
	if err != nil {
		logf(stderr, "minidump-stackwalk: %s: %v\n", o.dumpPath, err)
		return exitDump, true
	}
	defer in.Close()
	defer dump.Close()
	out := stdout
	var file *os.File
	if f := group.(*dumpFlag).fs.Lookup("output-file"); f != nil && f.Changed {
		if file, err = os.Create(f.Value.String()); err != nil {
			logf(stderr, "minidump-stackwalk: %v\n", err)
			return exitDump, true
		}
		out = file
	}
	w := bufio.NewWriterSize(out, 64<<10)
	err = dumptext.Write(w, dump)
	if err == nil {
		err = w.Flush()
	}
	if file != nil {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		logf(stderr, "minidump-stackwalk: %s: %v\n", o.dumpPath, err)
		return exitDump, true
	}
	return exitOK, true
}

// openRawDump opens the minidump at path, "-" for standard input, gzip-,
// zstd- or xz-compressed or not (internal/input tells them by content).
// Close the Input (its temporary file) after the File.
func openRawDump(path string, stdin io.Reader) (*minidump.File, *dumpinput.Input, error) {
	in, err := dumpinput.Open(path, stdin, dumpinput.Options{})
	if err != nil {
		in.Close()
		return nil, nil, err
	}
	var f *minidump.File
	switch {
	case in.Kind != dumpinput.Minidump:
		err = fmt.Errorf("--dump reads minidumps; this is %v", in.Kind)
	case in.Whole != nil:
		f, err = minidump.FromBytes(in.Whole)
	case in.File != nil:
		f, err = minidump.NewFile(in.File, in.Size)
	default:
		f, err = minidump.Open(path)
	}
	if err != nil {
		in.Close()
		return nil, nil, err
	}
	return f, in, nil
}
