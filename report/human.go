package report

import (
	"io"
	"strconv"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
)

// HumanOptions select the parts of the human-readable report, mirroring
// minidump_stackwalk's flags.
type HumanOptions struct {
	// StackContents (-s) prints each frame's stack words and the possible
	// instruction pointers among them.
	StackContents bool
	// RequestingThreadOnly (-c) prints only the crashed or requesting thread.
	RequestingThreadOnly bool
	// ExtraThread (-t N), when >= 0, prints the requesting thread and then
	// thread N, and no module list. -1 disables it.
	ExtraThread int
	// StackDump (-d) replaces each thread's frames by a dump of its stack
	// memory from the stack pointer up, annotated with symbols and stack
	// addresses.
	StackDump bool
	// MaxStackDumpBytes bounds the stack memory -d prints, over all
	// threads; 0 means DefaultMaxStackDumpBytes. Threads may share one
	// region (a hostile dump: 1000 threads over 1.6 MB wrote 13.8 GB), so
	// the dump's size alone does not bound the output.
	MaxStackDumpBytes int64
}

// DefaultMaxStackDumpBytes is the stack memory -d prints at most: 8 MiB,
// about 60 to 100 MB of text.
const DefaultMaxStackDumpBytes = 8 << 20

// DefaultHumanOptions is the plain minidump_stackwalk report.
var DefaultHumanOptions = HumanOptions{ExtraThread: -1}

// WriteHuman prints st as minidump_stackwalk's default report, with the
// parts opts selects.
func WriteHuman(w io.Writer, st *processor.ProcessState, opts HumanOptions) error {
	return writeHuman(w, newTextView(st), opts)
}

func writeHuman(w io.Writer, v *textView, opts HumanOptions) error {
	pr := &printer{w: w}
	writeHeader(pr, v)
	dumpLeft := opts.MaxStackDumpBytes
	if dumpLeft <= 0 {
		dumpLeft = DefaultMaxStackDumpBytes
	}

	printThread := func(i int, title string) {
		pr.printf("\n%s\n", title)
		t := v.threads[i]
		if opts.StackDump {
			writeStackDump(pr, v, t, &dumpLeft)
			return
		}
		writeStack(pr, v, t, opts.StackContents)
	}

	req := v.requesting
	if req >= 0 {
		printThread(req, "Thread "+itoa(req)+" ("+crashedWord(v.st)+")")
	}
	switch {
	case opts.ExtraThread >= 0:
		if n := opts.ExtraThread; n < len(v.threads) && n != req {
			printThread(n, "Thread "+itoa(n))
		}
	case !opts.RequestingThreadOnly:
		for i := range v.threads {
			if i != req {
				printThread(i, "Thread "+itoa(i))
			}
		}
	}
	if opts.ExtraThread < 0 {
		writeModules(pr, v)
	}
	return pr.err
}

func crashedWord(st *processor.ProcessState) string {
	if st.Crashed {
		return "crashed"
	}
	return "requested dump, did not crash"
}

func writeHeader(pr *printer, v *textView) {
	st, sys := v.st, v.system()
	pr.printf("Operating system: %s\n", esc(sys.OS))
	pr.printf("                  %s\n", esc(sys.OSVersion))
	pr.printf("CPU: %s\n", esc(sys.CPU))
	if sys.CPUInfo != "" {
		pr.printf("     %s\n", esc(sys.CPUInfo))
	}
	plural := "s"
	if sys.CPUCount == 1 {
		plural = ""
	}
	pr.printf("     %d CPU%s\n", sys.CPUCount, plural)
	pr.puts("\n")

	pr.puts("GPU:")
	if gpu := st.GPU; gpu.Version != "" || gpu.Vendor != "" || gpu.Renderer != "" {
		pr.printf(" %s\n", esc(gpu.Version))
		pr.printf("     %s\n", esc(gpu.Vendor))
		pr.printf("     %s\n", esc(gpu.Renderer))
	} else {
		pr.puts(" UNKNOWN\n")
	}
	pr.puts("\n")

	if st.Crashed {
		pr.printf("Crash reason:  %s\n", esc(st.CrashReason))
		pr.printf("Crash address: 0x%x\n", st.CrashAddress)
		if params := v.crashParameters(); len(params) > 0 {
			pr.puts("Crash parameters:\n")
			for _, value := range params {
				// Breakpad describes none of them.
				pr.printf("    value: 0x%016x  description: \n", value)
			}
		}
		writeCrashAnalysis(pr, st.CrashAnalysis, wordSize(sys.CPU))
	} else {
		pr.puts("No crash\n")
	}
	if st.Assertion != "" {
		pr.printf("Assertion: %s\n", esc(st.Assertion))
	}
	if uptime, ok := v.processUptime(); ok {
		// Breakpad prints the unsigned difference with %d.
		pr.printf("Process uptime: %d seconds\n", int32(uptime))
	} else {
		pr.puts("Process uptime: not available\n")
	}
}

// writeFrameHeader prints " 0  module!function [file : line + 0xoff]"
// without the newline.
func writeFrameHeader(pr *printer, v *textView, f *processor.Frame, index int) {
	b := pr.buf[:0]
	if index >= 0 && index < 10 {
		b = append(b, ' ') // %2d
	}
	b = strconv.AppendInt(b, int64(index), 10)
	b = append(b, "  "...)
	addr := f.ReturnAddress()
	m := v.frameModule(f)
	switch {
	case m == nil:
		b = append(b, "0x"...)
		b = appendHex(b, addr, 0)
	case f.Function == "":
		b = append(b, textBase(m.CodeFile)...)
		b = append(b, " + 0x"...)
		b = appendHex(b, addr-m.Base, 0)
	case f.SourceFile != "":
		b = append(b, textBase(m.CodeFile)...)
		b = append(b, '!')
		b = append(b, esc(f.Function)...)
		b = append(b, " ["...)
		b = append(b, textBase(f.SourceFile)...)
		b = append(b, " : "...)
		b = strconv.AppendInt(b, int64(f.SourceLine), 10)
		b = append(b, " + 0x"...)
		b = appendHex(b, addr-f.SourceLineBase, 0)
		b = append(b, ']')
	default:
		b = append(b, textBase(m.CodeFile)...)
		b = append(b, '!')
		b = append(b, esc(f.Function)...)
		b = append(b, " + 0x"...)
		b = appendHex(b, addr-f.FunctionBase, 0)
	}
	pr.write(b)
}

func writeStack(pr *printer, v *textView, t *processor.Thread, stackContents bool) {
	if len(t.Frames) == 0 {
		pr.puts(" <no frames>\n")
	}
	cpu := v.system().CPU
	for i, f := range t.Frames {
		writeFrameHeader(pr, v, f, i)
		pr.puts("\n ")
		if f.Trust != processor.TrustInline {
			writeRegisters(pr, cpu, f)
		}
		pr.puts("\n    Found by: ")
		pr.puts(f.Trust.String())
		pr.puts("\n")
		if stackContents && i+1 < len(t.Frames) {
			writeStackContents(pr, v, t, f, t.Frames[i+1])
		}
	}
}

// Register print orders, by index into minidump's register tables.
var (
	orderX86Always = []int{0, 1, 2, 3, 4, 5}             // eip esp ebp ebx esi edi
	orderX86Full   = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9} // and eax ecx edx efl: only with the full context
	orderARM       = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 11, 13, 14, 15}
)

// maxLineWidth is Breakpad's register-line budget (an 80-column terminal).
const maxLineWidth = 80

// writeRegisters prints the frame's valid registers, or for the thread's
// own context frame every register: Breakpad treats each of them as valid
// (CONTEXT_VALID_ALL) and only then prints x86's eax, ecx, edx and efl.
func writeRegisters(pr *printer, cpu string, f *processor.Frame) {
	ctx := &f.Context
	all := f.Trust == processor.TrustContext
	var arch minidump.Arch
	var order []int
	width := 0
	switch cpu {
	case "x86":
		arch, width = minidump.ArchX86, 8
		order = orderX86Always
		if all {
			order = orderX86Full
		}
	case "amd64":
		arch, width = minidump.ArchAMD64, 16
	case "arm":
		arch, width, order = minidump.ArchARM, 8, orderARM
	case "arm64":
		arch, width = minidump.ArchARM64, 16
	default:
		return
	}
	col := 0
	for k := 0; ; k++ {
		i := k // no order: every register in index order
		if order != nil {
			if k == len(order) {
				break
			}
			i = order[k]
		}
		name := minidump.RegisterName(arch, i)
		if name == "" {
			break
		}
		v, ok := ctx.Index(i)
		if ctx.Arch != arch {
			ok = false
		}
		if !ok && !all {
			continue
		}
		// " %5s = 0x%08x" or " %5s = 0x%016x"
		b := append(pr.buf[:0], ' ')
		b = appendPadded(b, name, 5)
		b = append(b, " = 0x"...)
		if width == 8 {
			b = appendHex(b, uint64(uint32(v)), 8)
		} else {
			b = appendHex(b, v, 16)
		}
		if col+len(b) > maxLineWidth {
			col = 0
			pr.puts("\n ")
		}
		col += len(b)
		pr.write(b)
	}
}

// isPrint is C's isprint in the "C" locale.
func isPrint(b byte) bool { return b >= 0x20 && b < 0x7f }

// writeStackContents prints the stack words between frame f's stack pointer
// and its caller's, in hex and as text, then the words that point into code
// with symbols.
func writeStackContents(pr *printer, v *textView, t *processor.Thread, f, caller *processor.Frame) {
	cpu := v.system().CPU
	switch cpu {
	case "x86", "amd64", "arm", "arm64", "riscv", "riscv64":
	default:
		return
	}
	word := wordSize(cpu)
	begin, ok1 := f.Context.SP()
	end, ok2 := caller.Context.SP()
	if !ok1 || !ok2 || begin == 0 || end == 0 {
		return
	}
	// Bound the work on a hostile dump: past the stack memory every row is
	// blank, so print at most a page of them (Breakpad prints them all).
	regionEnd := t.StackBase + uint64(len(t.Stack))
	if limit := max(begin, regionEnd) + 4096; limit > begin && end > limit {
		end = limit
	}
	const indent = "    "
	pr.printf("\n%sStack contents:", indent)
	for addr := begin; addr < end; {
		if word == 4 {
			pr.printf("\n%s %08x", indent, uint32(addr))
		} else {
			pr.printf("\n%s %016x", indent, addr)
		}
		var text [16]byte
		for i := 0; i < 16; i, addr = i+1, addr+1 {
			// The last row runs on past the caller's stack pointer while
			// memory lasts, as Breakpad's output shows.
			b, ok := readWord(t.StackBase, t.Stack, addr, 1)
			if ok {
				pr.printf(" %02x", b)
				if isPrint(byte(b)) {
					text[i] = byte(b)
				} else {
					text[i] = '.'
				}
			} else {
				pr.puts("   ")
				text[i] = ' '
			}
		}
		pr.printf("  %s", text[:])
	}
	pr.printf("\n%sPossible instruction pointers:\n", indent)
	for addr := begin; addr < end; addr += uint64(word) {
		val, _ := readWord(t.StackBase, t.Stack, addr, word)
		for _, s := range symbolize(v, val) {
			if word == 4 {
				pr.printf("%s *(0x%08x) = 0x%08x", indent, uint32(addr), uint32(val))
			} else {
				pr.printf("%s *(0x%016x) = 0x%016x", indent, addr, val)
			}
			pr.printf(" <%s> [%s : %d + 0x%x]\n", s.Function, textBase(s.File), s.Line, val-s.LineBase)
		}
	}
	pr.puts("\n")
}

// symbolize returns the named code at addr, skipping entries without a
// name, the function names escaped.
func symbolize(v *textView, addr uint64) []processor.SourceInfo {
	if v.symbolize == nil {
		return nil
	}
	var out []processor.SourceInfo
	for _, s := range v.symbolize(addr) {
		if s.Function != "" {
			s.Function = esc(s.Function)
			out = append(out, s)
		}
	}
	return out
}

func writeModules(pr *printer, v *textView) {
	if !v.st.HaveModules {
		return
	}
	pr.puts("\nLoaded modules:\n")
	mainBase, haveMain := v.mainBase()
	v.modules(func(m *processor.Module) {
		// "0x%08x - 0x%08x  %s  %s%s%s\n"
		b := append(pr.buf[:0], "0x"...)
		b = appendHex(b, m.Base, 8)
		b = append(b, " - 0x"...)
		b = appendHex(b, m.Base+m.Size-1, 8)
		b = append(b, "  "...)
		b = append(b, textBase(m.CodeFile)...)
		b = append(b, "  "...)
		if m.Version == "" {
			b = append(b, "???"...)
		} else {
			b = append(b, esc(m.Version)...)
		}
		if haveMain && mainBase != 0 && m.Base == mainBase {
			b = append(b, "  (main)"...)
		}
		switch {
		case m.NoSymbolsWarning:
			b = appendSymbolsWarning(b, "No", m)
		case m.CorruptSymbolsWarning:
			b = appendSymbolsWarning(b, "Corrupt", m)
		}
		pr.write(append(b, '\n'))
	})
}

// appendSymbolsWarning appends "  (WARNING: <kind> symbols, file, id)".
func appendSymbolsWarning(b []byte, kind string, m *processor.Module) []byte {
	b = append(b, "  (WARNING: "...)
	b = append(b, kind...)
	b = append(b, " symbols, "...)
	b = append(b, textBase(m.DebugFile)...)
	b = append(b, ", "...)
	b = append(b, esc(m.DebugID)...)
	return append(b, ')')
}
