package input

import (
	"bytes"
	"compress/gzip"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/xz"
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

// Options bound what Open reads.
type Options struct {
	// MaxBytes bounds the bytes read from standard input (or another
	// stream) and the decompressed bytes of a compressed input, both
	// written to a temporary file. 0 means DefaultMaxBytes.
	MaxBytes int64
	// Buffer, when its capacity holds a minidump read whole (at most
	// WholeBytes), receives it in place of a new slice: Input.Whole then
	// shares Buffer's memory, and so does everything parsed from it (a
	// minidump.File and its stacks), so the caller must not reuse Buffer
	// until those are dropped. A batch reads thousands of dumps one after
	// the other into one buffer per worker rather than allocating each.
	Buffer []byte
}

// DefaultMaxBytes is Options.MaxBytes when unset: 4 GiB, as far as a
// minidump's 32-bit RVAs reach, so no dump a crash reporter uploads is
// refused (a larger full-memory dump can be given uncompressed: it is
// mapped, not copied); it bounds the temporary disk space one input takes.
const DefaultMaxBytes = 4 << 30

// Input is a dump, microdump or core (or what was given instead). Close it
// when done.
type Input struct {
	Name        string // the path as given; "-" is standard input
	Kind        Kind   // what the content is, after decompression
	Compression Kind   // Gzip, Zstd or Xz when the file was compressed, else Unknown
	// Data is a microdump's text (at most microdump.MaxSize bytes, the parser's bound), read
	// into memory.
	Data []byte
	// File holds the content when it was decompressed or read from a
	// stream (standard input, a pipe): a temporary file, already removed
	// where the system allows an open file to be removed, else removed by
	// Close. Size is its size. When Data and File are nil, open Name.
	File *os.File
	Size int64
	// Whole is a minidump of at most WholeBytes in a regular file, read
	// into memory by the one read that also told its kind: the caller
	// parses it from here rather than opening Name again.
	Whole []byte

	removePath string // the temporary file to remove on Close, if any
}

// Close releases the temporary file, if any.
func (in *Input) Close() error {
	if in == nil || in.File == nil {
		return nil
	}
	err := in.File.Close()
	if in.removePath != "" {
		if rerr := os.Remove(in.removePath); err == nil {
			err = rerr
		}
	}
	in.File, in.removePath = nil, ""
	return err
}

// ErrTooLarge is wrapped by Open's error when standard input or a
// decompressed input exceeds Options.MaxBytes.
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

// Open reads enough of the input name ("-": stdin) to tell its kind. A
// compressed input (one level of gzip, zstd or xz) is decompressed, and
// standard input or another stream copied, into a temporary file
// (Input.File), through a bounded copy that holds only a small buffer in
// memory. An input of a kind the walker does not process gives a
// *NotADumpError, with the Input still returned (Close it).
func Open(name string, stdin io.Reader, opt Options) (*Input, error) {
	limit := opt.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	in := &Input{Name: name}
	if err := openContent(in, stdin, limit, opt.Buffer); err != nil {
		in.Close()
		return nil, err
	}
	if in.Kind == Text {
		if err := readText(in); err != nil {
			in.Close()
			return nil, err
		}
	}
	if !in.Kind.Processable() {
		return in, &NotADumpError{Name: name, Kind: in.Kind, Compression: in.Compression}
	}
	return in, nil
}

// openContent sets in.Kind, and in.File when the content is not in the
// regular file in.Name.
func openContent(in *Input, stdin io.Reader, limit int64, buf []byte) error {
	if in.Name == "-" {
		if err := spool(in, stdin, "standard input", limit, nil); err != nil {
			return err
		}
	} else {
		f, err := openRead(in.Name)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		if st.Mode().IsRegular() {
			if size := st.Size(); size > 0 && size <= WholeBytes {
				return readWhole(in, f, size, limit, buf)
			}
			return sniffAndDecompress(in, f, st.Size(), limit)
		}
		// A pipe or device (/dev/stdin): read it as a stream.
		if err := spool(in, f, in.Name, limit, nil); err != nil {
			return err
		}
	}
	return sniffAndDecompress(in, in.File, in.Size, limit)
}

// WholeBytes: a minidump up to this size is read into memory (Input.Whole)
// by one read, as minidump.Open reads rather than maps a file this small.
// A batch of thousands of 40 KB dumps opened each file twice, to sniff
// it and to read it, and Go's os.Open costs an openat, four fcntl and an
// epoll_ctl (issue 29).
const WholeBytes = 1 << 20

// readWhole reads the regular file src of size bytes whole, into buf when
// it has the capacity, and sets in.Whole when it holds a minidump; any
// other kind is told as sniffAndDecompress tells it.
func readWhole(in *Input, src *os.File, size, limit int64, buf []byte) error {
	var data []byte
	if int64(cap(buf)) >= size {
		data = buf[:size]
	} else {
		data = make([]byte, size)
	}
	if n, err := io.ReadFull(src, data); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			// Truncated since Stat: as minidump.Open's read of it.
			err = &fs.PathError{Op: "read", Path: in.Name, Err: fmt.Errorf("%d of %d bytes: %w", n, size, io.ErrUnexpectedEOF)}
		}
		return err
	}
	if Sniff(data[:min(len(data), headSize)]) == Minidump {
		in.Kind, in.Whole = Minidump, data
		return nil
	}
	return sniffAndDecompress(in, src, size, limit)
}

// sniffAndDecompress tells the kind of src's content and, when it is
// compressed, replaces in.File with its decompression.
func sniffAndDecompress(in *Input, src *os.File, size int64, limit int64) error {
	head := make([]byte, headSize)
	n, err := src.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return &Error{Name: in.Name, Offset: int64(n), Err: err}
	}
	in.Kind = Sniff(head[:n])
	if !in.Kind.Compressed() {
		return nil
	}
	if in.Compression != Unknown {
		return &Error{Name: in.Name, Offset: 0, Err: fmt.Errorf("%s holding %s: one level of compression is read", in.Compression, in.Kind)}
	}
	in.Compression = in.Kind
	counted := &countingReader{r: io.NewSectionReader(src, 0, size)}
	r, closeReader, err := decompressor(in.Kind, counted)
	if err != nil {
		return &Error{Name: in.Name, Offset: counted.n, Err: fmt.Errorf("%s: %w", in.Compression, err)}
	}
	defer closeReader()
	old := *in
	defer old.Close() // the stdin copy, if it was one
	if err := spool(in, r, in.Name, limit, counted); err != nil {
		return err
	}
	return sniffAndDecompress(in, in.File, in.Size, limit)
}

// spool copies r into a new temporary file, in.File, refusing more than
// limit bytes. counted, when not nil, gives the offset in the compressed
// input for errors.
func spool(in *Input, r io.Reader, name string, limit int64, counted *countingReader) error {
	tmp, err := os.CreateTemp("", "minidump-stackwalk-input-*")
	if err != nil {
		return fmt.Errorf("%s: temporary copy: %w", name, err)
	}
	in.File, in.Size, in.removePath = tmp, 0, tmp.Name()
	if os.Remove(tmp.Name()) == nil {
		in.removePath = "" // unlinked while open (unix): gone with the descriptor
	}
	buf := make([]byte, 64<<10)
	n, more, err := copyHead(tmp, r, buf, limit, counted == nil)
	switch {
	case err == nil && more && Sniff(buf[:min(n, int64(len(buf)))]) == Minidump:
		n, err = copyDump(tmp, r, buf, n, limit) // stops at a run of zeros past the dump
	case err == nil && more:
		var rest int64
		rest, err = io.CopyBuffer(onlyWriter{tmp}, io.LimitReader(r, limit+1-n), buf)
		n += rest
	}
	in.Size = n
	offset := n
	if counted != nil {
		offset = counted.n
	}
	switch {
	case err != nil && counted != nil:
		return &Error{Name: name, Offset: offset, Err: fmt.Errorf("%s: %w", in.Compression, err)}
	case err != nil:
		return &Error{Name: name, Offset: offset, Err: err}
	case n > limit:
		what := "content"
		if counted != nil {
			what = "decompressed content"
		}
		return &Error{Name: name, Offset: offset, Err: fmt.Errorf("%w: %s over %d bytes (%s)", ErrTooLarge, what, limit, sizeText(limit))}
	}
	return nil
}

// copyHead copies up to len(buf) bytes of r to w, and says whether the
// rest is worth reading: when there is more and the head is a kind the
// walker processes, text that may hold a microdump, or (when
// mayDecompress: not already decompressed) compressed data. The head of
// anything else is all its error needs (a stream of zeros is refused at
// once, not copied to the bound).
func copyHead(w io.Writer, r io.Reader, buf []byte, limit int64, mayDecompress bool) (n int64, more bool, err error) {
	head := buf[:min(int64(len(buf)), limit+1)]
	m := 0
	for m < len(head) && err == nil {
		var k int
		k, err = r.Read(head[m:])
		m += k
	}
	if werr := writeAll(w, head[:m]); err == nil || err == io.EOF && werr != nil {
		err = werr
	}
	if err == io.EOF { // io.ErrUnexpectedEOF is a truncated stream
		return int64(m), false, nil
	}
	kind := Sniff(head[:m])
	return int64(m), kind.Processable() || kind == Text || mayDecompress && kind.Compressed(), err
}

func writeAll(w io.Writer, p []byte) error {
	_, err := w.Write(p)
	return err
}

// onlyWriter hides the file's ReadFrom, so that io.CopyBuffer uses the
// bounded buffer given to it.
type onlyWriter struct{ w io.Writer }

func (o onlyWriter) Write(p []byte) (int, error) { return o.w.Write(p) }

// sizeText writes n bytes in MiB or GiB when it is a whole number of them.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readText reads a text input, which may hold a microdump, into in.Data;
// text too large to be a microdump stays Text, unread.
func readText(in *Input) error {
	var r io.Reader = in.File
	if in.File == nil {
		f, err := os.Open(in.Name)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	} else if _, err := in.File.Seek(0, io.SeekStart); err != nil {
		return err
	}
	// Sized from the file's length when it is a regular file: io.ReadAll
	// grows its buffer step by step, copying a 64 MiB microdump again and
	// again (docs/limits.md).
	var buf bytes.Buffer
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() <= maxMicrodump {
			buf.Grow(int(fi.Size()) + bytes.MinRead)
		}
	}
	_, err := buf.ReadFrom(io.LimitReader(r, maxMicrodump+1))
	data := buf.Bytes()
	if err != nil {
		return &Error{Name: in.Name, Offset: int64(len(data)), Err: err}
	}
	if len(data) <= maxMicrodump && holdsMicrodump(data) {
		in.Kind, in.Data = Microdump, data
		return in.Close()
	}
	return nil
}

// SniffFile tells the kind of the file at path from its first bytes,
// decompressed when it is compressed (one level), without reading it
// whole: for scanning directories for dumps, and for telling a dump given
// where another file is expected. A text file is a Microdump when its
// first bytes hold a microdump's start. compression is Gzip, Zstd, Xz or
// Unknown.
func SniffFile(path string) (kind, compression Kind, err error) {
	f, err := openRead(path)
	if err != nil {
		return Unknown, Unknown, err
	}
	defer f.Close()
	// The first headSize bytes tell every kind but a microdump, whose
	// marker may come after lines of logcat: only text is read further.
	// A batch's directory scan sniffs every file, so reading and clearing
	// 64 KiB for each dump cost more than a tenth of a warm batch.
	head, err := readHeadN(f, headSize)
	if err == nil && len(head) == headSize && Sniff(head) == Text {
		var rest []byte
		rest, err = readHeadN(f, sniffHeadSize-headSize)
		head = append(head, rest...)
	}
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
	if kind == Text && holdsMicrodump(head) {
		kind = Microdump
	}
	return kind, compression, nil
}

// sniffHeadSize is what SniffFile reads: enough for every kind's magic and
// the logcat lines before a microdump's start.
const sniffHeadSize = 64 << 10

// readHead reads up to sniffHeadSize bytes of r.
func readHead(r io.Reader) ([]byte, error) { return readHeadN(r, sniffHeadSize) }

// readHeadN reads up to n bytes of r.
func readHeadN(r io.Reader, n int) ([]byte, error) {
	head := make([]byte, n)
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
		x, err := xz.NewReader(src)
		if err != nil {
			return nil, nil, err
		}
		return x, func() {}, nil
	}
	return nil, nil, fmt.Errorf("%s is no compression format", kind)
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
