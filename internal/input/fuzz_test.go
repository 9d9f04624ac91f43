package input

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzOpen feeds arbitrary bytes as standard input (raw, and as the
// content of each compression format's magic; the seeds include a bomb of
// each format): Open never panics, never holds or writes more than the
// limit, and either succeeds with a processable kind or says why not.
func FuzzOpen(f *testing.F) {
	f.Add([]byte("MDMP\x93\xa7"))
	f.Add([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00"))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0x58})
	f.Add([]byte{0xfd, '7', 'z', 'X', 'Z', 0, 0, 4})
	f.Add([]byte("I google-breakpad: -----BEGIN BREAKPAD MICRODUMP-----\n"))
	const limit = 1 << 20
	zeros := make([]byte, 2*limit)
	f.Add(gzipped(f, zeros))
	f.Add(zstded(f, zeros))
	f.Add(xzed(f, zeros))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := Open("-", bytes.NewReader(data), Options{MaxBytes: limit})
		var nd *NotADumpError
		var ie *Error
		switch {
		case err == nil:
			if !in.Kind.Processable() {
				t.Fatalf("no error for kind %v", in.Kind)
			}
		case errors.As(err, &nd):
			if in == nil || in.Kind.Processable() {
				t.Fatalf("NotADumpError for %+v", in)
			}
		case errors.As(err, &ie):
		default:
			t.Fatalf("untyped error %v", err)
		}
		if in != nil && (len(in.Data) > limit || in.Size > limit) {
			t.Fatalf("%d bytes held, %d in the temporary file, limit %d", len(in.Data), in.Size, limit)
		}
		in.Close()
	})
}
