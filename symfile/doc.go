// Package symfile reads Breakpad text symbol files (.sym) and answers the
// questions of the stack walkers and the symbolizer: which function, source
// line and inline chain cover a module-relative address, which STACK CFI
// rules and which STACK WIN record apply there.
//
// Open memory-maps a plain file (OpenWithBudget decompresses a .sym.gz or
// .sym.zst file, streaming, into an unlinked temporary file that is then
// mapped, within a DecompressBudget's bounds per file and per run, with
// the budget's Decompressor: this package has none, so that the walkers
// link no decompressor; package symcompress gives one) and
// builds a compact index in one pass, run in parallel over chunks of the
// file, which it reads with pread into a buffer per worker (sequential
// reads of 256 KiB, which the pass reads while they are in the CPU's
// cache: no page faults nor madvise), once. The records kept
// of a file on disk are copied, chunk after chunk in file order, into
// arrays of reserved memory, sorted there in place (indexseq.go), each
// record written once; on Linux those arrays take transparent huge pages
// once they grow past half of one (hugepage.go). For a file under 4 GiB
// they hold 32-bit offsets: about 30% less memory and index file than the
// 64-bit layout of larger files and of data in memory (indexlayout.go).
// The pass validates every line as Breakpad's parser would, and records
// only the offsets and
// address ranges of FUNC, PUBLIC, STACK CFI INIT, STACK WIN, FILE and
// INLINE_ORIGIN records. A FUNC's line
// and INLINE records are parsed the first time a lookup touches the
// function, and then cached, as is a STACK CFI INIT record's block of rule
// sets the first time a lookup lands in it (cfiblock.go), and each row of
// that block's rules compiled for the evaluator the first time
// SharedCFIRules gives it (cfiprogram.go), its register names resolved
// against a walker's register table once per table and row
// (Evaluator.CallerRegsTable: registers read and set by index). So a walk
// pays only for the records it touches: see docs/performance.md.
//
// IndexDir keeps that index on disk, one file per symbol file, so that later
// processes map it instead of reading the symbol file: IndexDir.Open, or a
// supplier made with NewIndexedDirSupplier (or symsrv.WithIndex). An index
// names its symbol file (absolute path, size, modification time, SHA-256 of
// its change stamp (inode, device, change time), its first and last 64 KiB
// and 64 blocks sampled between them) and this package's index version; it
// is checked before
// use (CRC-32C over the whole file, then the bounds and order of every
// entry) and rebuilt when stale, foreign or corrupt. It is written to a
// temporary file and renamed, so concurrent processes only ever see whole
// indexes; a build's index is written by a goroutine while the File is
// used (IndexDir.Wait waits for the writes, as a process should before it
// exits; File.Close waits for its own). When the directory cannot be
// written, files are indexed in memory and the caller is warned. A .sym.gz or .sym.zst is decompressed,
// streaming, into the directory, and the plain copy is used. Only regular
// files are opened (a FIFO there does not block: internal/regfile).
//
// A mapped file truncated while it is read faults: the openers return that
// as an error naming the file, and the lookups name the file on the fault as
// it passes to the caller's boundary (internal/mapfault, fault.go).
//
// The rules of Breakpad's BasicSourceLineResolver are kept:
//   - When ranges overlap, the first FUNC, line record or STACK CFI INIT in
//     the file wins, and ranges of size 0 are ignored.
//   - For PUBLIC records the first at an address wins; a duplicate, like any
//     malformed line, makes the file corrupt. PUBLIC records at address 0
//     are ignored.
//   - Of several STACK CFI delta records at one address, the last wins.
//   - A PUBLIC record names an address only when no FUNC lies between it and
//     the address.
//   - STACK WIN records nest. The innermost type 4 (FrameData) record is
//     preferred over type 0 (FPO).
//   - Loading stops after more than 100 malformed lines.
//
// A malformed line does not stop loading. Open and NewFile return the usable
// File together with a *CorruptError that names the file and line, as
// Breakpad marks such a module "corrupt" and still uses it.
//
// Evaluate and EvaluateValue are the postfix evaluator of CFI rules and
// STACK WIN programs. CFIRules.FindCallerRegs applies a rule set as
// Breakpad's CFIFrameInfo does. NewDirSupplier finds a module's file in
// Breakpad's symbol directory layout and loads it at most once.
// Symbol servers are package symsrv's, apart so that the walkers, which
// read only this package's types, do not link net/http.
// ChainSupplier asks several suppliers in order, e.g. local directories
// before symbol servers. BaseName, SymbolFileName and SafePathElement give
// Breakpad's store layout to other suppliers.
//
// Known differences from Breakpad, all on input that dump_syms does not write:
//   - Error line numbers count every line, blank ones included.
//   - A lone '\r' inside a line does not split it.
//   - STACK CFI deltas are taken from the lines after their INIT record, not
//     from anywhere in the file.
//   - The evaluator also accepts 0x-prefixed hex literals.
//   - Division by zero, and INLINE records that follow no FUNC, are errors
//     rather than crashes.
//   - Hostile files are bounded: ranges nest at most 256 deep (inline
//     chains, STACK WIN), at most 65536 delta lines are read after an INIT
//     record, and an evaluation runs at most 4096 tokens.
package symfile
