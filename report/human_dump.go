package report

import "github.com/minidump-stackwalk/minidump-stackwalk/processor"

// writeStackDump prints a thread for -d: its stack region, then every word
// from the stack pointer to the end of the region, marking words that point
// into the dumped range ("-- stack_address", with the nearest earlier word
// that points at this one as "part of a chain") and words that symbols name.
// The layout follows Breakpad's output for -d; see
// ../shared/corpus/breakpad/expected/flags/*.d.txt.
//
// *left is the stack memory still to print over all threads
// (HumanOptions.MaxStackDumpBytes); past it, a line says the dump was cut.
func writeStackDump(pr *printer, v *textView, t *processor.Thread, left *int64) {
	sp, ok := threadSP(t)
	if t.Stack == nil || !ok {
		return
	}
	begin := t.StackBase
	end := begin + uint64(len(t.Stack))
	pr.printf("stack begin:    0x%016x\n", begin)
	pr.printf("stack end:      0x%016x\n", end)
	pr.printf("stack pointer:  0x%016x\n", sp)
	pr.puts("\n")
	from := sp
	if from < begin || from > end {
		from = begin
	}
	pr.printf("Stack range to dump: 0x%016x - 0x%016x\n", from, end)
	pr.puts("\n")
	pr.puts("Possible instruction pointers:\n")

	word := uint64(wordSize(v.system().CPU))
	// pointedFrom maps a stack address to the latest earlier word holding it.
	pointedFrom := map[uint64]uint64{}
	for addr := from; addr+word <= end; addr += word {
		if *left < int64(word) {
			pr.puts(" (stack dump cut here: the bound on the stack memory -d prints, over all threads, is reached)\n")
			break
		}
		*left -= int64(word)
		val, _ := readWord(begin, t.Stack, addr, int(word))
		if word == 4 {
			pr.printf(" *(0x%08x) = 0x%08x", uint32(addr), uint32(val))
		} else {
			pr.printf(" *(0x%016x) = 0x%016x", addr, val)
		}
		if val >= from && val < end {
			pr.puts(" -- stack_address")
			if src, ok := pointedFrom[addr]; ok {
				pr.printf("  (part of a chain: 0x%016x --> 0x%016x)", src, addr)
			}
			pointedFrom[val] = addr
		} else if syms := symbolize(v, val); len(syms) > 0 {
			s := syms[0]
			pr.printf(" %s [%s : %d + 0x%x]", s.Function, textBase(s.File), s.Line, val-s.LineBase)
		}
		pr.puts("\n")
	}
	pr.puts("\n")
}
