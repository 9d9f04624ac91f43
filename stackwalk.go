package stackwalk

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/minidump-stackwalk/minidump-stackwalk/coredump"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/coreconv"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/input"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/mapfault"
	"github.com/minidump-stackwalk/minidump-stackwalk/microdump"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// Kind is the kind of an input file.
type Kind uint8

// Input kinds.
const (
	KindMinidump  Kind = iota // a minidump (Breakpad, Crashpad, Windows)
	KindMicrodump             // an Android microdump (logcat text)
	KindCore                  // a Linux ELF core file, converted to a minidump
)

func (k Kind) String() string {
	switch k {
	case KindMicrodump:
		return "microdump"
	case KindCore:
		return "ELF core"
	}
	return "minidump"
}

// Dump is an opened input of any kind, ready to be processed.
type Dump struct {
	Kind Kind
	// Minidump is the minidump read, or for a core the minidump it was
	// converted to (as Breakpad's core2md converts it); nil for a microdump.
	Minidump *minidump.File
	// Microdump is the parsed microdump; nil for the other kinds. Its
	// Warnings list the records that were ignored.
	Microdump *microdump.Dump

	name  string       // the path it was opened from, for errors; "" when not known
	input *input.Input // its temporary file (decompressed or standard input), closed by Close
}

// Options tune Open.
type Options struct {
	// Sysroot is, for an ELF core, the directory under which the module
	// files the core names are read (for the code around return addresses
	// that the walk checks call sites with); "/" reads them where they are.
	// "" reads none: a core is untrusted input, and its paths must not
	// decide which local files are opened.
	Sysroot string
	// Stdin is read when the path is "-".
	Stdin io.Reader
	// MaxBytes bounds standard input and the decompression of a gzip-,
	// zstd- or xz-compressed file, each copied into a temporary file and
	// read from there. 0 means 4 GiB (input.DefaultMaxBytes). A plain
	// minidump or core is memory-mapped instead; a microdump is read into
	// memory, up to microdump.MaxSize.
	MaxBytes int64
	// ReadBuffer, when its capacity holds the minidump, receives it
	// rather than a new slice (a minidump of up to 1 MiB in a regular
	// file is read into memory whole): the Dump and its ProcessState
	// then share ReadBuffer's memory, so the caller must not reuse it
	// until both are dropped. For a batch, which reads one dump after
	// another.
	ReadBuffer []byte
}

// Open reads the file at path as whatever kind of dump it is, with the
// zero Options: see OpenWith.
func Open(path string) (*Dump, error) { return OpenWith(path, Options{}) }

// OpenWith reads the input at path ("-": opts.Stdin) as whatever kind of
// dump it is, told by its content: a minidump, a microdump (text holding
// one), an ELF core file (converted to a minidump as cmd/core2md converts
// it), each also gzip-, zstd- or xz-compressed. The error is the reader's,
// naming the offset or line where the input is malformed; for an input of
// another kind, it says what the input looks like. Close the Dump when
// done.
func OpenWith(path string, opts Options) (*Dump, error) {
	in, err := input.Open(path, opts.Stdin, input.Options{MaxBytes: opts.MaxBytes, Buffer: opts.ReadBuffer})
	var notDump *input.NotADumpError
	switch {
	case errors.As(err, &notDump) && notDump.Compression == input.Unknown:
		// The minidump reader's error says where the header is wrong;
		// the kind says what the file is instead.
		d, mdErr := openMinidump(in) // closes in
		if mdErr != nil {
			return nil, fmt.Errorf("%w (it looks like %s)", mdErr, notDump.Kind)
		}
		d.Close() // not reached: a file the reader takes starts "MDMP"
		return nil, err
	case err != nil:
		in.Close() // nil-safe: a read error returns no Input
		return nil, err
	}
	switch in.Kind {
	case input.Microdump:
		in.Close()
		d, err := microdump.Parse(in.Data)
		if err != nil {
			return nil, err
		}
		return &Dump{Kind: KindMicrodump, Microdump: d}, nil
	case input.ELFCore:
		return openCore(in, opts.Sysroot)
	}
	return openMinidump(in)
}

// NewMinidump makes a Dump of an opened minidump.
func NewMinidump(f *minidump.File) *Dump { return &Dump{Kind: KindMinidump, Minidump: f} }

// Process walks every thread of the dump and symbolizes it with syms (nil:
// no symbols). See processor.Process for opts and the errors; for a
// microdump processor.MicrodumpOptions are used, which reproduce Breakpad's
// microdump_stackwalk, with opts' budgets and trace. The state is never nil: on an
// error it holds what could be read, and its Status says what went wrong.
//
// A memory-mapped dump or symbol file truncated while it is read (rewritten
// in place by another process) cannot be read on: the result is then
// processor.Unreadable of a *mapfault.Error naming the file, and that error.
// The ProcessState's stack memory is read from the mapping too, so the
// caller's printing must not outlive such a change either (the command
// guards its printing the same way).
func (d *Dump) Process(syms symfile.Supplier, opts processor.Options) (st *processor.ProcessState, err error) {
	defer mapfault.Enable()()
	defer func() {
		if err != nil && st == nil {
			st = processor.Unreadable(err)
		}
	}()
	defer mapfault.Recover(&err, d.name)
	return d.process(syms, opts)
}

func (d *Dump) process(syms symfile.Supplier, opts processor.Options) (*processor.ProcessState, error) {
	if d.Microdump != nil {
		// Breakpad's walk, within the caller's budgets.
		mo := processor.MicrodumpOptions()
		mo.MaxFrames, mo.MaxTotalFrames, mo.MaxTime, mo.Trace = opts.MaxFrames, opts.MaxTotalFrames, opts.MaxTime, opts.Trace
		mo.Context = opts.Context
		return processor.ProcessMicrodump(d.Microdump, syms, mo)
	}
	return processor.Process(d.Minidump, syms, opts)
}

// Close releases the minidump's file or memory map, and the temporary
// file it was read from.
func (d *Dump) Close() error {
	var err error
	if d.Minidump != nil {
		err = d.Minidump.Close()
	}
	if ierr := d.input.Close(); err == nil {
		err = ierr
	}
	return err
}

// openMinidump opens the minidump in: from the bytes already read
// (Input.Whole), memory-mapped from its file, or read from its temporary
// file. The Dump owns in; on an error in is
// closed.
func openMinidump(in *input.Input) (*Dump, error) {
	var f *minidump.File
	var err error
	switch {
	case in.Whole != nil:
		f, err = minidump.FromBytes(in.Whole)
	case in.File != nil:
		f, err = minidump.NewFile(in.File, in.Size)
	default:
		f, err = minidump.Open(in.Name)
	}
	if err != nil {
		in.Close()
		return nil, err
	}
	d := NewMinidump(f)
	d.name, d.input = in.Name, in
	return d, nil
}

// openCore converts the core in as cmd/core2md does with its defaults,
// except that module files are read only under sysroot.
func openCore(in *input.Input, sysroot string) (*Dump, error) {
	data, err := convertCore(in, coreOptions(sysroot))
	in.Close()
	if err != nil {
		return nil, err
	}
	f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("converted dump: %w", err)
	}
	return &Dump{Kind: KindCore, Minidump: f}, nil
}

// convertCore returns the minidump of the core in.
func convertCore(in *input.Input, opt coreconv.Options) ([]byte, error) {
	var core *coredump.File
	var err error
	if in.File != nil {
		core, err = coredump.NewFile(in.File, in.Size)
	} else {
		core, err = coredump.Open(in.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("core file: %w", err)
	}
	defer core.Close()
	data, err := coreconv.Convert(core, opt)
	if err != nil {
		return nil, fmt.Errorf("converting the core: %w", err)
	}
	return data, nil
}

// coreOptions are core2md's conversion defaults, except that module files
// are read from disk only under sysroot, and not at all when it is "".
func coreOptions(sysroot string) coreconv.Options {
	opt := coreconv.DefaultOptions()
	opt.Sysroot, opt.NoDisk = sysroot, sysroot == ""
	return opt
}
