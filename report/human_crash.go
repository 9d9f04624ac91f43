package report

import (
	"fmt"
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/crashinfo"
)

// writeCrashAnalysis prints the faulting instruction, its memory accesses,
// its instruction pointer update, the adjusted address and the possible bit
// flips in rust-minidump's human wording (process_state.rs), which its
// snapshots show:
//
//	Crashing instruction: `mov dword [0x45], 0x5`
//	Memory accessed by instruction:
//	  0. Address: 0x0000000000000045
//	     Size: 4
//	     Access type: Write
//	No instruction pointer update by instruction
//	Crashing address may be the result of a flipped bit:
//	  0. Valid address: 0x0000000000400045 (0.250)
//
// rust-minidump marks an adjusted address on its "Crash address" line, which
// Breakpad's format owns; we print it on a line of its own.
func writeCrashAnalysis(pr *printer, a *crashinfo.Result, word int) {
	if a == nil {
		return
	}
	hex := func(v uint64) string { return fmt.Sprintf("0x%0*x", 2*word, v) }
	if a.Instruction != "" {
		writeInstruction(pr, a, hex)
	}
	writeBitFlips(pr, a.BitFlips, hex)
	if len(a.Inconsistencies) > 0 {
		pr.puts("Crash is inconsistent:\n")
		for _, name := range a.Inconsistencies {
			pr.printf("  %s\n", crashinfo.InconsistencyText(name))
		}
	}
}

func writeInstruction(pr *printer, a *crashinfo.Result, hex func(uint64) string) {
	if adj := a.Adjusted; adj != nil {
		switch adj.Kind {
		case crashinfo.NonCanonical:
			pr.printf("    ** Non-canonical address detected: %s\n", hex(adj.Value))
		case crashinfo.NullPointer:
			pr.printf("    ** Null pointer detected with offset: %s\n", hex(adj.Value))
		}
	}
	pr.printf("Crashing instruction: `%s`\n", a.Instruction)
	if a.AccessesKnown {
		if len(a.Accesses) == 0 {
			pr.puts("No memory accessed by instruction\n")
		} else {
			pr.puts("Memory accessed by instruction:\n")
		}
		for i, acc := range a.Accesses {
			pr.printf("  %d. Address: %s\n", i, hex(acc.Address))
			if acc.Size > 0 {
				pr.printf("     Size: %d\n", acc.Size)
			} else {
				pr.puts("     Size: Unknown\n")
			}
			if acc.LikelyGuardPage {
				pr.puts("     This address falls in a likely guard page.\n")
			}
			if t := acc.Type; t != crashinfo.AccessUnknown {
				name := map[crashinfo.AccessType]string{crashinfo.AccessRead: "Read", crashinfo.AccessWrite: "Write",
					crashinfo.AccessReadWrite: "ReadWrite"}[t]
				pr.printf("     Access type: %s\n", name)
			}
		}
	}
	switch {
	case a.IPUpdate != nil:
		pr.puts("Instruction pointer update done by instruction:\n")
		pr.printf("  Address: %s\n", hex(a.IPUpdate.Address))
	case a.IPUpdateKnown:
		pr.puts("No instruction pointer update by instruction\n")
	}
}

func writeBitFlips(pr *printer, bitFlips []crashinfo.BitFlip, hex func(uint64) string) {
	if len(bitFlips) > 0 {
		pr.puts("Crashing address may be the result of a flipped bit:\n")
		flips := append([]crashinfo.BitFlip(nil), bitFlips...)
		sort.SliceStable(flips, func(i, j int) bool {
			if flips[i].Confidence != flips[j].Confidence {
				return flips[i].Confidence > flips[j].Confidence
			}
			return flips[i].Address < flips[j].Address
		})
		for i, f := range flips {
			reg := ""
			if f.SourceRegister != "" {
				reg = f.SourceRegister + "="
			}
			pr.printf("  %d. Valid address: %s%s (%.3f)\n", i, reg, hex(f.Address), f.Confidence)
		}
	}
}
