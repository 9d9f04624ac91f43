//go:build !unix

package symfile

// reserve is not available: decompressed data goes to a growing buffer.
func reserve(n int64) ([]byte, func([]byte) error) { return nil, nil }

func trim(mem []byte, n int) []byte { return mem }
