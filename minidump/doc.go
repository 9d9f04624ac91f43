// Package minidump reads minidump files written by Breakpad, Crashpad and
// Windows' MiniDumpWriteDump: the stream directory, every stream those writers
// emit, CPU contexts of x86, amd64, arm and arm64 (Microsoft's layout and
// Breakpad's older one), and the captured memory.
//
// Open memory-maps a file, or reads it into memory when it is small (up to
// 1 MiB: unmapping costs more than the read), FromBytes reads a dump already
// in memory in place (File.InMemory: its slices outlive Close), and NewFile
// reads through any io.ReaderAt; only the header and stream directory are
// parsed up front. Each stream has its own
// accessor returning (value, error), so one broken stream does not hide the
// others; list accessors return the readable entries together with the error.
// A stream missing from the dump gives an error wrapping ErrNoStream.
//
// A mapped file truncated while it is read (rewritten in place) faults on
// the lost pages: Open turns that into an error naming the file, and later
// reads, which hand out slices of the mapping, are guarded by the caller
// (stackwalk.Dump.Process and the command: internal/mapfault).
//
// Input is untrusted: every count, size and offset is checked against the
// stream and file sizes before use, and malformed data yields a *FormatError
// naming the stream and file offset.
//
// Beyond parsing, the package holds the strings Breakpad's minidump_stackwalk
// derives from a dump, so that printers only print: SystemInfo's OS, OSVersion,
// CPU, CPUInfo and CPUCount; CrashReason and CrashAddress; Module's Version,
// CodeID, DebugFile and DebugID; AssertionInfo.String; ProcessUptime; and the
// thread rules (ThreadRoles: the dump thread is skipped, the exception thread
// or BreakpadInfo's requesting thread is the requesting one), MainModule, and
// BreakpadModuleRanges: the module list as Breakpad's processor stores it
// (order of printing, lookup ranges after overlaps, or no list at all).
//
// Contexts keep every register value; Context validity follows the context
// flags' control and integer groups, except that flags naming no group at all
// (as macOS writers leave them) mark every register valid, since Breakpad
// ignores the flags of a dump's contexts. SetAllValid gives Breakpad's view.
package minidump
