package dumptext

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// maxStreams is Breakpad's limit on the stream directory; a dump with more
// streams is rejected whole.
const maxStreams = 128

// Stream types minidump_dump reads.
const (
	typeThreadList     = 3
	typeModuleList     = 4
	typeMemoryList     = 5
	typeException      = 6
	typeSystemInfo     = 7
	typeMiscInfo       = 15
	typeMemoryInfoList = 16
	typeThreadNameList = 24
	typeBreakpadInfo   = 0x47670001
	typeAssertionInfo  = 0x47670002
	typeCrashpadInfo   = 0x43500001
)

// rawTextStreams are the Linux streams minidump_dump prints as text, in its
// order.
var rawTextStreams = []uint32{0x47670006, 0x47670007, 0x47670005, 0x47670004, 0x47670003, 0x47670009}

// dump is one run of the printer: the file, Breakpad's view of its
// directory, the cursor and the system info once read.
type dump struct {
	w   *bufio.Writer
	c   cursor
	f   *minidump.File
	dir []minidump.StreamInfo
	// index is Breakpad's stream map: each type's directory index (the last
	// entry of a type that may repeat).
	index map[uint32]int
	sys   *sysInfo
}

// Write prints the minidump f as Breakpad's minidump_dump prints it to
// stdout. It returns an error, having printed nothing, when Breakpad's reader
// would reject the file as a whole; an error after printing when the dump's
// structures asked to read far more than the file holds (ErrReadBudget:
// the rest was printed as Breakpad prints unreadable data); and write errors.
func Write(w io.Writer, f *minidump.File) error {
	if n := f.Header.NumStreams; n > maxStreams {
		return fmt.Errorf("dumptext: %d streams, more than the %d Breakpad's minidump_dump reads", n, maxStreams)
	}
	d := &dump{w: bufio.NewWriter(w), c: cursor{r: f, size: f.Size(), budget: readBudget(f.Size())},
		f: f, dir: f.Streams(), index: map[uint32]int{}}
	for i, s := range d.dir {
		d.index[uint32(s.Type)] = i
	}
	d.printHeader()
	d.printThreads()
	d.printThreadNames()
	d.printModules()
	d.printMemoryList()
	d.printException()
	d.printAssertion()
	d.printSystemInfo()
	d.printMiscInfo()
	d.printBreakpadInfo()
	d.printMemoryInfoList()
	d.printCrashpadInfo()
	for _, t := range rawTextStreams {
		d.printRawText(t)
	}
	if err := d.w.Flush(); err != nil {
		return err
	}
	if d.c.overBudget {
		return fmt.Errorf("dumptext: %w (%d bytes for a %d-byte file)", ErrReadBudget, readBudget(f.Size()), f.Size())
	}
	return nil
}

// ErrReadBudget reports a dump whose structures point at the same bytes so
// many times that printing them all would read without bound.
var ErrReadBudget = errors.New("the dump's structures ask to read more than the read budget")

func (d *dump) printf(format string, args ...any) {
	fmt.Fprintf(d.w, format, args...)
}

// seekStream moves the cursor to the stream of type t and returns its
// size, as Minidump::SeekToStreamType.
func (d *dump) seekStream(t uint32) (uint32, bool) {
	i, ok := d.index[t]
	if !ok {
		return 0, false
	}
	s := d.dir[i]
	if !d.c.seek(s.Off) {
		return 0, false
	}
	return s.Size, true
}

// streamName is Breakpad's name of a stream type (get_stream_name).
func streamName(t uint32) string {
	switch t {
	case 0:
		return "MD_UNUSED_STREAM"
	case 1:
		return "MD_RESERVED_STREAM_0"
	case 2:
		return "MD_RESERVED_STREAM_1"
	case 3:
		return "MD_THREAD_LIST_STREAM"
	case 24:
		return "MD_THREAD_NAME_LIST_STREAM"
	case 4:
		return "MD_MODULE_LIST_STREAM"
	case 5:
		return "MD_MEMORY_LIST_STREAM"
	case 6:
		return "MD_EXCEPTION_STREAM"
	case 7:
		return "MD_SYSTEM_INFO_STREAM"
	case 8:
		return "MD_THREAD_EX_LIST_STREAM"
	case 9:
		return "MD_MEMORY_64_LIST_STREAM"
	case 10:
		return "MD_COMMENT_STREAM_A"
	case 11:
		return "MD_COMMENT_STREAM_W"
	case 12:
		return "MD_HANDLE_DATA_STREAM"
	case 13:
		return "MD_FUNCTION_TABLE_STREAM"
	case 14:
		return "MD_UNLOADED_MODULE_LIST_STREAM"
	case 15:
		return "MD_MISC_INFO_STREAM"
	case 16:
		return "MD_MEMORY_INFO_LIST_STREAM"
	case 17:
		return "MD_THREAD_INFO_LIST_STREAM"
	case 18:
		return "MD_HANDLE_OPERATION_LIST_STREAM"
	case 19:
		return "MD_TOKEN_STREAM"
	case 20:
		return "MD_JAVASCRIPT_DATA_STREAM"
	case 21:
		return "MD_SYSTEM_MEMORY_INFO_STREAM"
	case 22:
		return "MD_PROCESS_VM_COUNTERS_STREAM"
	case 0xffff:
		return "MD_LAST_RESERVED_STREAM"
	case 0x47670001:
		return "MD_BREAKPAD_INFO_STREAM"
	case 0x47670002:
		return "MD_ASSERTION_INFO_STREAM"
	case 0x47670003:
		return "MD_LINUX_CPU_INFO"
	case 0x47670004:
		return "MD_LINUX_PROC_STATUS"
	case 0x47670005:
		return "MD_LINUX_LSB_RELEASE"
	case 0x47670006:
		return "MD_LINUX_CMD_LINE"
	case 0x47670007:
		return "MD_LINUX_ENVIRON"
	case 0x47670008:
		return "MD_LINUX_AUXV"
	case 0x47670009:
		return "MD_LINUX_MAPS"
	case 0x4767000a:
		return "MD_LINUX_DSO_DEBUG"
	case 0x43500001:
		return "MD_CRASHPAD_INFO_STREAM"
	}
	return "unknown"
}

// printHeader is Minidump::Print: the header, the directory and the stream
// map in type order.
func (d *dump) printHeader() {
	h := d.f.Header
	d.printf("MDRawHeader\n")
	d.printf("  signature            = 0x%x\n", h.Signature)
	d.printf("  version              = 0x%x\n", h.Version)
	d.printf("  stream_count         = %d\n", int32(h.NumStreams))
	d.printf("  stream_directory_rva = 0x%x\n", h.DirectoryRVA)
	d.printf("  checksum             = 0x%x\n", h.Checksum)
	d.printf("  time_date_stamp      = 0x%x %s\n", h.TimeDateStamp, utcTime(h.TimeDateStamp))
	d.printf("  flags                = 0x%x\n\n", h.Flags)
	for i, s := range d.dir {
		d.printf("mDirectory[%d]\nMDRawDirectory\n", i)
		d.printf("  stream_type        = 0x%x (%s)\n", uint32(s.Type), streamName(uint32(s.Type)))
		d.printf("  location.data_size = %d\n", int32(s.Size))
		d.printf("  location.rva       = 0x%x\n\n", s.Off)
	}
	d.printf("Streams:\n")
	types := make([]uint32, 0, len(d.index))
	for t := range d.index {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool { return types[i] < types[j] })
	for _, t := range types {
		d.printf("  stream type 0x%x (%s) at index %d\n", t, streamName(t), d.index[t])
	}
	d.printf("\n")
}

// printRawText is minidump_dump's DumpRawStream: the stream's bytes with
// each NUL shown as "\0" and a line break.
func (d *dump) printRawText(t uint32) {
	n, ok := d.seekStream(t)
	if !ok {
		return
	}
	d.printf("Stream %s:\n", streamName(t))
	if n == 0 {
		d.printf("\n")
		return
	}
	b, ok := d.c.read(int64(n))
	if !ok {
		return
	}
	for len(b) > 0 {
		i := indexNUL(b)
		if i < 0 {
			io.WriteString(d.w, textsafe.EscapeText(string(b))) // lines and tabs kept
			break
		}
		io.WriteString(d.w, textsafe.EscapeText(string(b[:i])))
		d.printf("\\0\n")
		b = b[i+1:]
	}
	d.printf("\n\n")
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
