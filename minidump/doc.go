// Package minidump reads minidump files written by Breakpad, Crashpad and
// Windows' MiniDumpWriteDump: the stream directory, every stream those writers
// emit, CPU contexts of x86, amd64, arm and arm64, and the captured memory.
//
// Input is untrusted: every count, size and offset is checked before use and
// malformed data yields a *FormatError naming the stream and file offset.
package minidump
