// Package arm64 recovers caller frames on AArch64: STACK CFI, then the
// frame-pointer chain (x29 frame records), then stack scanning.
//
// In Breakpad mode (walker.Env.Mode) the walker follows Breakpad's StackwalkerARM64
// exactly, quirks included, so that output matches minidump_stackwalk and
// microdump_stackwalk. Without it (the default) these things differ where
// Breakpad loses or invents frames:
//
//   - A context frame without CFI whose function has not pushed its frame
//     record (a leaf, or a crash in a prologue) returns through LR with SP
//     and x29 unchanged. Breakpad instead sets SP to x29+16, which is the
//     caller's caller's frame, so CFI for the caller then reads the wrong slots.
//     (Without symbols for the crashing function, an LR into its own module
//     is not trusted.)
//   - Scanning skips values that cannot be return addresses (function
//     starts, far PUBLIC matches) and candidates whose CFI unwinds to junk;
//     once it has skipped one it takes only a candidate its call site or
//     CFI proves (retaddr.CheckProof), and else stops.
//   - CFI of a frame found by a frame record runs at the sp its x29 shows
//     when its CFI saves x29 higher than the sp the record gave (recordsp.go:
//     a record sits at the bottom of its frame, so that sp is a lower bound).
//   - The frame-pointer step takes the caller's PC from the frame record
//     ([x29+8]) rather than from the callee's LR register, which for a frame
//     that has pushed its record and made calls points back into the callee,
//     and the caller's LR from the caller's own record; a record is accepted
//     only when it lies above SP and the chain grows.
//   - Pointer-authentication bits are stripped from return addresses (those
//     found by scanning too) and frame pointers with a mask covering at least
//     47 bits and the highest loaded module (rust-minidump's rule); Breakpad
//     strips only return addresses from CFI, frame records and LR, and only
//     when the result lands in a module, so its scan never finds an arm64e
//     caller.
//   - When the dump holds the code before a candidate return address
//     (retaddr's call-site check), a scanned word no call precedes is
//     dropped, a direct call to the current function is preferred, and a
//     frame-record or LR return address the code shows to follow no call is
//     not used (after a call to another function, as a tail call leaves, only
//     with evidence below the record: retaddr.ReturnRejected).
//   - Above a Linux rt_sigreturn trampoline (__kernel_rt_sigreturn by
//     symbol, its code, or a pc outside every module such as qemu-user's
//     trampoline page), the interrupted frame is recovered from the
//     kernel's rt_sigframe with every saved register (sigframe.go); where
//     the dump lacks the code at a pc in the vDSO or inside a function
//     without CFI (walker.MaybeSigreturnWithoutCode) the frame must also
//     name a signal, have uc_flags and uc_link 0 and a saved pc in a module
//     (sigframe_nocode.go); the
//     frame record the kernel leaves above it, which skips the interrupted
//     pc, is never followed from the trampoline.
//
// Like every walker, it names a frame unwound by rules read from a
// prologue in the module's ELF file walker.RuleModulePrologue (walker.Env.Native;
// trust: call frame info), notes each signal frame it unwinds
// (walker.NoteSignalFrame) so that no scan takes the saved registers for
// return addresses, and scans through retaddr.Scan over retaddr.ScanWords
// (in the default mode four times Breakpad's window from a CFI frame too).
//
// The methods, per mode, are the ordered rule tables of rules.go,
// which Caller tries in order (docs/design.md, "Caller rules").
package arm64
