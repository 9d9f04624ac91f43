package main

// Resource bounds for hostile input (docs/limits.md): flags to raise them.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// limitFlags are the bounds a run keeps to, whatever its input.
type limitFlags struct {
	decompressedFile  byteSize // --symbols-max-decompressed-file
	decompressedTotal byteSize // --symbols-max-decompressed

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
}

// decompressBudget is the one budget all symbol suppliers of the run share.
func (f *limitFlags) decompressBudget() *symfile.DecompressBudget {
	if f.budget == nil {
		f.budget = symfile.NewDecompressBudget(int64(f.decompressedFile), int64(f.decompressedTotal))
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
