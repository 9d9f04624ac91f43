// Package microdump parses Android microdumps: the text crash reports that
// Breakpad's microdump writer prints to logcat between
// "-----BEGIN BREAKPAD MICRODUMP-----" and "-----END BREAKPAD MICRODUMP-----".
//
// A microdump holds one thread: its CPU context (C line), one stack memory
// region (S lines), the loaded modules (M lines), system and GPU information
// (O and G lines) and optionally a crash reason (R line). Parse reads the first
// microdump of a log and returns a *Dump with the same inputs a minidump gives
// the processor: a minidump.Context, memory readable through ReadMemory, and
// a module list resolved the way Breakpad's microdump_stackwalk resolves it
// (on Android, overlapping module ranges are shrunk rather than dropped).
//
// The reading rules follow Breakpad's processor/microdump.cc, so that
// walking a microdump gives output identical to microdump_stackwalk:
// logcat prefixes are ignored (a record is found by its ": X " key anywhere in
// a line), only the first microdump of a file is read, and hex fields are
// read leniently. Input is untrusted: sizes are checked, and malformed records
// are reported in Dump.Warnings or as a *FormatError with the line number.
package microdump
