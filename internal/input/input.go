package input

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/minidump-stackwalk/minidump-stackwalk/microdump"
)

// Kind is what an input's bytes are.
type Kind int

const (
	Unknown   Kind = iota // none of the below: binary data of no known format
	Empty                 // no bytes at all
	Minidump              // a minidump ("MDMP")
	Microdump             // text holding a Breakpad microdump
	ELFCore               // an ELF core file (e_type ET_CORE)
	ELF                   // an ELF file that is not a core (a program, a library, an object)
	Gzip                  // gzip-compressed data
	Zstd                  // zstd-compressed data
	Xz                    // xz-compressed data
	Text                  // text that holds no microdump
)

var kindNames = [...]string{
	Unknown:   "binary data of no known format",
	Empty:     "an empty file",
	Minidump:  "a minidump",
	Microdump: "a microdump",
	ELFCore:   "an ELF core file",
	ELF:       "an ELF file that is not a core (a program or library?)",
	Gzip:      "gzip-compressed data",
	Zstd:      "zstd-compressed data",
	Xz:        "xz-compressed data",
	Text:      "text without a microdump",
}

// String describes the kind as a phrase: "a minidump", "gzip-compressed data".
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// Processable reports whether the stack walker takes inputs of the kind.
func (k Kind) Processable() bool { return k == Minidump || k == Microdump || k == ELFCore }

// Compressed reports whether the kind is a compression format.
func (k Kind) Compressed() bool { return k == Gzip || k == Zstd || k == Xz }

// headSize is the bytes Sniff needs to tell every kind but microdumps apart.
const headSize = 512

// Sniff tells the kind of data from its first bytes (up to 512 are
// looked at). Text is only Text: whether it holds a microdump needs the
// whole of it (see Open).
func Sniff(data []byte) Kind {
	switch {
	case len(data) == 0:
		return Empty
	case len(data) >= 4 && (binary.LittleEndian.Uint32(data) == 0x504d444d || binary.BigEndian.Uint32(data) == 0x504d444d):
		return Minidump
	case bytes.HasPrefix(data, []byte(elf.ELFMAG)):
		if isCore(data) {
			return ELFCore
		}
		return ELF
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		return Gzip
	case bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return Zstd
	case bytes.HasPrefix(data, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return Xz
	case looksLikeText(data[:min(len(data), headSize)]):
		return Text
	}
	return Unknown
}

// isCore reports whether the ELF header in data has type ET_CORE, in the
// file's byte order.
func isCore(data []byte) bool {
	if len(data) < 18 {
		return false
	}
	var order binary.ByteOrder = binary.LittleEndian
	if elf.Data(data[elf.EI_DATA]) == elf.ELFDATA2MSB {
		order = binary.BigEndian
	}
	return elf.Type(order.Uint16(data[16:])) == elf.ET_CORE
}

// looksLikeText reports whether head is UTF-8 without NUL or other control
// bytes than white space (a cut rune at the end is allowed).
func looksLikeText(head []byte) bool {
	for i := 0; i < len(head); {
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n <= 1 {
			return len(head)-i < utf8.UTFMax && !utf8.FullRune(head[i:])
		}
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' {
			return false
		}
		i += n
	}
	return true
}

// Options bound what Open reads into memory.
type Options struct {
	// MaxBytes bounds the bytes read from standard input, the decompressed
	// bytes of a compressed input, and a text file searched for a
	// microdump. 0 means DefaultMaxBytes.
	MaxBytes int64
}

// DefaultMaxBytes is Options.MaxBytes when unset: more than any minidump or
// core a crash reporter uploads, less than a CI container's memory.
const DefaultMaxBytes = 1 << 30

// Input is a dump, microdump or core (or what was given instead).
type Input struct {
	Name        string // the path as given; "-" is standard input
	Kind        Kind   // what the content is, after decompression
	Compression Kind   // Gzip, Zstd or Xz when the file was compressed, else Unknown
	// Data is the content when it had to be read into memory (standard
	// input, a compressed file, a microdump); nil means: open Name.
	Data []byte
}

// ErrTooLarge is wrapped by Open's error when an input that must be held in
// memory exceeds Options.MaxBytes.
var ErrTooLarge = errors.New("input larger than the limit")

// Error is a failure to read an input: its name, and the offset in the
// (compressed) input where reading stopped.
type Error struct {
	Name   string
	Offset int64
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: at offset %#x: %v", e.Name, e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// NotADumpError says that an input holds none of the kinds the stack walker
// processes, and what it holds instead.
type NotADumpError struct {
	Name string
	Kind Kind
	// Compression is set when the kind is that of a decompressed content.
	Compression Kind
}

func (e *NotADumpError) Error() string {
	if e.Compression != Unknown {
		return fmt.Sprintf("%s is not a minidump, microdump or ELF core: it is %s holding %s", e.Name, e.Compression, e.Kind)
	}
	return fmt.Sprintf("%s is not a minidump, microdump or ELF core: it looks like %s", e.Name, e.Kind)
}

// Open reads enough of the input name ("-": stdin) to tell its kind,
// decompressing it (one level of gzip, zstd or xz) into memory when it is
// compressed. An input of a kind the walker does not process gives a
// *NotADumpError, with the Input still returned.
func Open(name string, stdin io.Reader, opt Options) (*Input, error) {
	limit := opt.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	in := &Input{Name: name}
	var err error
	if name == "-" {
		in.Data, err = readAtMost(stdin, limit)
		if err != nil {
			return nil, &Error{Name: "standard input", Offset: int64(len(in.Data)), Err: err}
		}
		in.Kind = Sniff(in.Data)
	} else if err = sniffFile(in, limit); err != nil {
		return nil, err
	}
	if in.Kind.Compressed() {
		if err := decompress(in, limit); err != nil {
			return nil, err
		}
	}
	if in.Kind == Text && in.Data != nil && microdump.IsMicrodump(in.Data) {
		in.Kind = Microdump
	}
	if !in.Kind.Processable() {
		return in, &NotADumpError{Name: name, Kind: in.Kind, Compression: in.Compression}
	}
	return in, nil
}

// sniffFile tells the kind of the file in.Name from its head; a compressed
// file, and a text file (which may hold a microdump), is read whole.
func sniffFile(in *Input, limit int64) error {
	f, err := os.Open(in.Name)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return err
	} else if !st.Mode().IsRegular() {
		// A pipe or device (/dev/stdin): read it as a stream.
		in.Data, err = readAtMost(f, limit)
		if err != nil {
			return &Error{Name: in.Name, Offset: int64(len(in.Data)), Err: err}
		}
		in.Kind = Sniff(in.Data)
		return nil
	}
	head := make([]byte, headSize)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return &Error{Name: in.Name, Offset: int64(n), Err: err}
	}
	in.Kind = Sniff(head[:n])
	if in.Kind != Text && !in.Kind.Compressed() {
		return nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	textLimit := limit
	if in.Kind == Text {
		textLimit = min(limit, microdump.MaxSize)
	}
	in.Data, err = readAtMost(f, textLimit)
	if errors.Is(err, ErrTooLarge) && in.Kind == Text {
		in.Data, err = nil, nil // too large to be a microdump: text it stays
	}
	if err != nil {
		return &Error{Name: in.Name, Offset: int64(len(in.Data)), Err: err}
	}
	return nil
}

// readAtMost reads r to its end, failing with ErrTooLarge past limit bytes.
func readAtMost(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return data, err
	}
	if int64(len(data)) > limit {
		return data[:limit], fmt.Errorf("%w of %d bytes", ErrTooLarge, limit)
	}
	return data, nil
}

// SniffFile tells the kind of the file at path from its first bytes,
// decompressed when it is compressed (one level), without reading it
// whole: for scanning directories for dumps, and for telling a dump given
// where another file is expected. A text file is a Microdump when its
// first bytes hold a microdump's start. compression is Gzip, Zstd, Xz or
// Unknown.
func SniffFile(path string) (kind, compression Kind, err error) {
	f, err := os.Open(path)
	if err != nil {
		return Unknown, Unknown, err
	}
	defer f.Close()
	head, err := readHead(f)
	if err != nil {
		return Unknown, Unknown, &Error{Name: path, Offset: int64(len(head)), Err: err}
	}
	kind = Sniff(head)
	if kind.Compressed() {
		compression = kind
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return Unknown, compression, err
		}
		r, closeReader, err := decompressor(kind, f)
		if err != nil {
			return Unknown, compression, &Error{Name: path, Err: fmt.Errorf("%s: %w", kind, err)}
		}
		defer closeReader()
		if head, err = readHead(r); err != nil && len(head) == 0 {
			return Unknown, compression, &Error{Name: path, Err: fmt.Errorf("%s: %w", kind, err)}
		}
		kind = Sniff(head)
	}
	if kind == Text && microdump.IsMicrodump(head) {
		kind = Microdump
	}
	return kind, compression, nil
}

// sniffHeadSize is what SniffFile reads: enough for every kind's magic and
// the logcat lines before a microdump's start.
const sniffHeadSize = 64 << 10

// readHead reads up to sniffHeadSize bytes of r.
func readHead(r io.Reader) ([]byte, error) {
	head := make([]byte, sniffHeadSize)
	n, err := io.ReadFull(r, head)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return head[:n], err
}

// decompressor returns a reader of the decompressed src and a function
// releasing it.
func decompressor(kind Kind, src io.Reader) (io.Reader, func(), error) {
	switch kind {
	case Gzip:
		g, err := gzip.NewReader(src)
		if err != nil {
			return nil, nil, err
		}
		return g, func() { g.Close() }, nil
	case Zstd:
		// The window bound keeps a hostile frame header from asking for
		// gigabytes of decoder memory up front.
		z, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(256<<20))
		if err != nil {
			return nil, nil, err
		}
		return z, z.Close, nil
	case Xz:
		x, err := xz.NewReader(bufio.NewReader(src))
		if err != nil {
			return nil, nil, err
		}
		return x, func() {}, nil
	}
	return nil, nil, fmt.Errorf("%s is no compression format", kind)
}

// decompress replaces in.Data (the compressed content, read from in.Name
// or stdin) with its decompression, bounded by limit.
func decompress(in *Input, limit int64) error {
	src := &countingReader{r: bytes.NewReader(in.Data)}
	in.Compression = in.Kind
	r, closeReader, err := decompressor(in.Kind, src)
	if err == nil {
		defer closeReader()
	}
	var data []byte
	if err == nil {
		data, err = readAtMost(r, limit)
	}
	if err != nil {
		return &Error{Name: in.Name, Offset: src.n, Err: fmt.Errorf("%s: %w", in.Compression, err)}
	}
	in.Data = data
	in.Kind = Sniff(data)
	if in.Kind.Compressed() {
		return &Error{Name: in.Name, Offset: 0, Err: fmt.Errorf("%s holding %s: one level of compression is read", in.Compression, in.Kind)}
	}
	return nil
}

// countingReader counts the bytes read through it, for error offsets.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
