//go:build !unix

package symfile

// reserve is not available: decompressed data goes to a growing buffer.
func reserve(n int64) ([]byte, func() error) { return nil, nil }

func reserveAligned(n int64, align int) ([]byte, func() error) { return nil, nil }
