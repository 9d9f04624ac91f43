// Package arm recovers caller frames on 32-bit ARM: STACK CFI, then the
// frame pointer, then stack scanning.
//
// In Breakpad mode (walker.Env.Mode) the walker follows Breakpad's StackwalkerARM exactly
// (the frame pointer, r7, is used only on iOS), so that output matches
// minidump_stackwalk and microdump_stackwalk. Without it (the default) the
// walker also recovers frames Breakpad loses when a function has no CFI, as
// happens for statically linked Thumb libc code whose unwind tables are in
// .ARM.exidx, which dump_syms does not convert:
//
//   - the context frame returns through LR when LR holds a plausible return
//     address outside the crashing function. If the function has pushed LR,
//     the caller's SP is just above the stack slot holding that value;
//     otherwise SP is unchanged. Breakpad scans instead, which skips the
//     caller of a leaf function. (Without symbols for the crashing function,
//     an LR into its own module is used only when found pushed.) A leaf
//     that pushed other registers moved SP: its prologue in the code at
//     hand says how far (leafPrologue); without its code, the least offset
//     at which the caller's CFI at LR unwinds to a proven return address,
//     when at SP itself it unwinds to junk (leafPushesWithoutCode).
//   - scanning skips values that cannot be return addresses (function
//     starts, far PUBLIC matches) and candidates whose CFI unwinds to junk;
//     once it has skipped one, it takes only a candidate its call site or
//     its own CFI proves (retaddr.CheckProof), and else stops: static
//     glibc's frames without CFI hold stale return addresses. A word
//     returning into the program's entry function or a thread's start
//     function (clone) is proven (nothing else returns there). When the
//     scan finds nothing, or the entry's return, the word below that
//     return which libc's start function's frame leaves is taken where
//     the program ran without an interpreter (auxv AT_BASE 0), else the
//     entry's return itself, up to 16 KiB above (byStartFrame,
//     retaddr.StartFrame; rule walker.RuleScanEntry): nothing ran on the
//     main stack before the entry, so the start function's frame holds
//     no stale word, and ARM code pushes lr at the top of a frame. For
//     the same reason a candidate proven only by its own CFI, whose step
//     reads the return into its caller below a higher word returning
//     into that caller at another call site, is a stale word of the
//     caller's earlier callee, and the higher word is taken
//     (retaddr's staleUnderCaller).
//   - a caller pc that lies in no module and, by the dump's memory map
//     (walker.Env.Executable), in no executable mapping is refused,
//     whichever rule found it: a return address is code
//     (Walker.ReturnsIntoData, asked by walker.CallerRules on every
//     architecture); without a map, or in an executable mapping (JIT), it
//     is taken.
//   - the frame-pointer chain is followed on every OS, with r7 for Thumb
//     code (a return address with bit 0 set) and r11 for ARM code, accepting
//     both record layouts in use ([fp]=caller fp, [fp+4]=lr from clang and
//     Thumb code; [fp-4]=caller fp, [fp]=lr from GCC in ARM mode) only when
//     the saved return address lies in a module, passes the scan's symbol
//     checks (retaddr's RecordSymbolObjection: not a function's first byte,
//     its Thumb PUBLIC looked up with the bit; CFI restores r7 and r11 in
//     code that keeps no record in them) and the chain grows.
//   - a frameless function without CFI leaves r7/r11 pointing at its
//     caller's record; a stack word below that record whose function's CFI
//     lands exactly on it is taken as the skipped caller (framelessCaller).
//   - when the dump holds the code before a candidate return address
//     (retaddr's call-site check), a candidate no call precedes is dropped,
//     a direct call to the current function is preferred, and a record or
//     LR return address the code shows to follow no call is
//     not used (after a call to another function, as a tail call leaves, only
//     with evidence below the record: retaddr.ReturnRejected).
//   - above a Linux sigreturn trampoline (glibc's restorers by symbol, the
//     trampoline's code, or a pc outside every module), the interrupted
//     frame is recovered from the kernel's sigframe or rt_sigframe with
//     every saved register (sigframe.go); a known trampoline whose frame
//     does not validate ends the walk. Where the dump lacks the code at a
//     caller's pc in the vDSO or inside a function without CFI
//     (walker.MaybeSigreturnWithoutCode), the frame is taken by its layout
//     alone with more evidence (sigframe_nocode.go): oldmask equal to
//     uc_sigmask's first word, the saved pc in a module, and for an
//     rt_sigframe uc_flags and uc_link 0.
//
// Return addresses carry the Thumb bit; lookups use the return address
// minus 2, which lies inside the call instruction in both states.
//
// Like every walker, it names a frame unwound by rules read from a
// prologue in the module's ELF file walker.RuleModulePrologue (walker.Env.Native;
// trust: call frame info), notes each signal frame it unwinds
// (walker.NoteSignalFrame) so that no scan takes the saved registers for
// return addresses, and scans through retaddr.Scan over retaddr.ScanWords
// (in the default mode four times Breakpad's window from a CFI frame too).
//
// The methods, per mode and OS, are the ordered rule tables of rules.go,
// which Caller tries in order (docs/design.md, "Caller rules").
package arm
