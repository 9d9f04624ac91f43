package main

// Resource bounds for hostile input (docs/limits.md): flags to raise them.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// limitFlags are the bounds a run keeps to, whatever its input.
type limitFlags struct {
	decompressedFile  byteSize      // --symbols-max-decompressed-file
	decompressedTotal byteSize      // --symbols-max-decompressed
	totalFrames       int           // --max-frames-total
	walkTime          time.Duration // --max-walk-time

	budget *symfile.DecompressBudget // made by decompressBudget
}

func (f *limitFlags) addFlags(fs *pflag.FlagSet) {
	f.decompressedFile = symfile.DefaultMaxDecompressedFile
	f.decompressedTotal = symfile.DefaultMaxDecompressedTotal
	fs.Var(&f.decompressedFile, "symbols-max-decompressed-file",
		"bound on the decompressed `SIZE` of one .sym.gz or .sym.zst file, in bytes or with a K, M\n"+
			"or G suffix (a larger file is not used: its module's symbols are reported corrupt)")
	fs.Var(&f.decompressedTotal, "symbols-max-decompressed",
		"bound on the decompressed `SIZE` of all .sym.gz and .sym.zst files of a run together")
	fs.IntVar(&f.totalFrames, "max-frames-total", processor.DefaultMaxTotalFrames,
		"bound on the frames kept across all threads: the crashed or requesting thread may use\n"+
			"half, the other threads share the rest (a thread over its share is truncated)")
	fs.DurationVar(&f.walkTime, "max-walk-time", processor.DefaultMaxTime,
		"bound on the time the walks of a dump take; walks still running then stop, truncated")
}

// check validates the bounds.
func (f *limitFlags) check() error {
	if f.totalFrames <= 0 {
		return fmt.Errorf("--max-frames-total %d: want a positive number", f.totalFrames)
	}
	if f.walkTime <= 0 {
		return fmt.Errorf("--max-walk-time %v: want a positive duration", f.walkTime)
	}
	return nil
}

// budgeted adds the bounds to the processing options, and walks only the
// requesting thread when the outputs print no other (walksOnlyRequesting).
// group is the output group taking over, nil for the text outputs.
func (o *options) budgeted(opts processor.Options, group flagGroup) processor.Options {
	opts.MaxTotalFrames = o.limits.totalFrames
	opts.MaxTime = o.limits.walkTime
	opts.WalkOnlyRequesting = o.walksOnlyRequesting(group)
	return opts
}

// walksOnlyRequesting reports whether the selected outputs print the
// requesting thread's frames and no other's: -b, and -c without -m (-m
// ignores -c, as Breakpad's does), unless a JSON report (--json, --cyborg),
// which lists every thread, is written too.
//
// In --breakpad-compat, -c still walks every thread: Breakpad's module list
// marks "WARNING: No symbols" on the modules of every thread's frames, and
// compat output is Breakpad's byte for byte (the frame budget bounds those
// walks). By default -c marks only the modules of the printed thread's
// frames: the only lines that differ from walking every thread
// (TestCrashedOnlyWalksOneThread, docs/limits.md).
func (o *options) walksOnlyRequesting(group flagGroup) bool {
	if r, ok := group.(*rustFlags); ok && (r.json || r.cyborg != "") {
		return false
	}
	if group != nil {
		if _, ok := group.(*rustFlags); !ok {
			return false
		}
	}
	switch {
	case o.brief:
		return true
	case o.crashedOnly && !o.machine:
		return !o.breakpadCompat
	}
	return false
}

// decompressBudget is the one budget all symbol suppliers of the run share.
func (f *limitFlags) decompressBudget() *symfile.DecompressBudget {
	if f.budget == nil {
		f.budget = symcompress.NewBudget(int64(f.decompressedFile), int64(f.decompressedTotal))
	}
	return f.budget
}

// byteSize is a flag value in bytes, written with an optional K, M or G
// (binary) suffix.
type byteSize int64

func (b *byteSize) String() string {
	v := int64(*b)
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"G", 30}, {"M", 20}, {"K", 10}} {
		if v != 0 && v%(1<<u.shift) == 0 {
			return strconv.FormatInt(v>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(v, 10)
}

func (b *byteSize) Set(s string) error {
	shift := uint(0)
	num := strings.TrimSuffix(strings.ToUpper(s), "B")
	switch {
	case strings.HasSuffix(num, "K"):
		shift = 10
	case strings.HasSuffix(num, "M"):
		shift = 20
	case strings.HasSuffix(num, "G"):
		shift = 30
	}
	if shift > 0 {
		num = num[:len(num)-1]
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v <= 0 || v > (1<<62)>>shift {
		return fmt.Errorf("%q: want a positive size such as 512M or 2G", s)
	}
	*b = byteSize(v << shift)
	return nil
}

func (b *byteSize) Type() string { return "size" }
