//go:build !unix

package symfile

import (
	"io"
	"os"
)

func mapFile(fh *os.File, size int64) ([]byte, func() error, error) {
	data := make([]byte, size)
	if _, err := io.ReadFull(fh, data); err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}

func releasePages(data []byte, lo, hi int) {}

func prefaultPages(data []byte, lo, hi int) {}

func adviseRandom(data []byte) {}
