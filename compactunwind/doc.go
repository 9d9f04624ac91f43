// Package compactunwind reads Apple's compact unwind tables, the
// __TEXT,__unwind_info section ld64 (and ld64.lld) writes into Mach-O
// images, for x86_64 and arm64: the header, the common encodings, the
// personality array, the first-level index with its LSDA array, and the
// regular and compressed second-level pages (Parse, Table.Entries,
// Table.Find).
//
// Entry.Rules turns an entry's 32-bit encoding into the register rules
// Breakpad's STACK CFI records give (CFA, .ra and the callee-saved
// registers as postfix expressions), as libunwind's
// CompactUnwinder_x86_64/arm64 apply them:
//   - x86_64 RBP frame: CFA = rbp+16, the return address at CFA-8, rbp at
//     CFA-16 and up to five registers saved at rbp-8*offset upward;
//   - x86_64 frameless, immediate stack size (in 8-byte units) or indirect
//     (the 32-bit immediate of the function's "sub $n, %rsp", read from
//     the code at the encoded offset, plus 8*adjust), with up to six
//     registers whose order is the encoded permutation;
//   - arm64 frame: CFA = x29+16, x30 at CFA-8, x29 at CFA-16, the x19-x28
//     pairs below; arm64 frameless: CFA = sp+16*n, the return address in
//     x30, the pairs below the CFA;
//   - DWARF mode: Entry.DWARFOffset is the FDE's offset in __eh_frame, which
//     the caller reads with package elfcfi.
//
// The d8-d15 pairs of arm64 are skipped (the walker restores no vector
// registers). Input is untrusted: every offset and count is checked
// against the section, and a malformed table yields a *FormatError naming
// the byte offset; the entries a table may give are bounded by its size.
package compactunwind
