// Package symcompress decompresses .sym.gz and .sym.zst symbol files for
// package symfile: Reader is a symfile.Decompressor, and NewBudget,
// NewDirSupplier and Open are symfile's with it. It is apart from symfile
// so that the walkers, which read only symfile's types, do not link gzip
// and zstd (issue 27); the command, the library front and the tools that
// read symbol stores use it.
package symcompress

import (
	"compress/gzip"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// maxZstdWindow bounds the window a zstd frame header may ask for, so that
// a hostile header cannot reserve memory: dump_syms output compressed with
// zstd's defaults uses a few MiB.
const maxZstdWindow = 128 << 20

// NewBudget is symfile.NewDecompressBudget(perFile, total) with Reader as
// its Decompressor.
func NewBudget(perFile, total int64) *symfile.DecompressBudget {
	return symfile.NewDecompressBudget(perFile, total).WithDecompressor(Reader)
}

// NewDirSupplier is symfile.NewDirSupplier with compressed files read by
// Reader, within a budget of the default size.
func NewDirSupplier(roots ...string) *symfile.DirSupplier {
	return symfile.NewDirSupplier(roots...).WithDecompressBudget(NewBudget(0, 0))
}

// Open is symfile.Open, reading a .gz or .zst file with Reader (at most
// symfile.DefaultMaxDecompressedFile bytes).
func Open(path string) (*symfile.File, error) {
	return symfile.OpenWithBudget(path, NewBudget(0, 0))
}

// Reader returns a reader of the decompressed data of r, the contents of
// the symbol file name, and the function that releases the reader. The
// name's extension says the format: .gz (gzip) or .zst (zstd).
func Reader(r io.Reader, name string) (io.Reader, func(), error) {
	switch {
	case strings.HasSuffix(name, ".gz"):
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, err
		}
		return zr, func() { zr.Close() }, nil
	case strings.HasSuffix(name, ".zst"):
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow),
			zstd.WithDecoderMaxMemory(symfile.DefaultMaxDecompressedFile))
		if err != nil {
			return nil, nil, err
		}
		return zr, zr.Close, nil
	}
	return nil, nil, fmt.Errorf("%s: not a .gz or .zst file", name)
}
