// Command ntstatusgen writes minidump/ntstatus_table.go, the NTSTATUS names
// NTStatusString knows, from a Windows ntstatus.h header (Debian's
// mingw-w64-common ships one as /usr/share/mingw-w64/include/ntstatus.h).
//
// Only error codes (severity bits 11, 0xC0000000 and up) are taken: Breakpad's
// NTStatusToString was generated from the 8.1 SDK's ntstatus.h with a filter
// for 0xC… values and prints every other value as 0x%08x. When one value has
// several names, the last in the header wins: mingw lists a renamed code's
// old name first (STATUS_FWP_TOO_MANY_BOOTTIME_FILTERS, then
// STATUS_FWP_TOO_MANY_CALLOUTS, the SDK's name for 0xC0220018).
//
//	go run ./internal/ntstatusgen -o ntstatus_table.go /usr/share/mingw-w64/include/ntstatus.h
package main
