// Package retaddr holds what the four walkers share about return
// addresses. A possible caller frame is a Candidate: a return address
// found on the stack and the evidence for it, gathered when asked for —
// Breakpad's test (in a function), the symbols' objections
// (SymbolObjection; RecordSymbolObjection for a frame record's return
// address, its Thumb function looked up with the bit), the consistency of the candidate frame's own CFI
// (CFIConsistent), whether it lies among the registers a signal frame the
// walk validated saved (SignalSaved: walker.NoteSignalFrame, which the
// four walkers call when they unwind one) and, when the dump holds code
// (walker.Env.Code), the call instruction that ends at it (Call:
// ClassifyCallSite decodes it for arm, Thumb, arm64, x86 and amd64, Judge
// compares it with the callee).
// decide weighs the checks a walker asks for (CheckProof: without its
// call site, its own CFI or a return into the program's entry function,
// Proven, a candidate is taken only as the first of its window; on ARM
// one proven only by its own CFI, whose step reads a stale return into
// its caller under a higher live one, yields to it: staleUnderCaller;
// StartFrame finds the word below that return which libc's start
// function's frame leaves), and Scan, the one stack
// scan of all four walkers and both modes (Breakpad's scan without code or
// checks), chooses among a window's candidates by their call sites (pick),
// over ScanWords, the one scan window. A walker that reads a return
// address elsewhere (a word below a frame record) asks a Candidate
// (NewCandidate) for the same evidence. Each instruction set has one
// description (instrSet: word size, call offset, Thumb bit, decoder,
// scan window). CallSiteContradicts and ReturnRejected let a frame-pointer
// or LR step reject a saved return address; FramelessLeaf decides a
// frameless frame 0.
package retaddr
