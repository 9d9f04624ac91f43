// Command winerrorgen writes minidump/winerror_table.go, the Win32 error
// names WindowsErrorString knows, from a Windows winerror.h header (Debian's
// mingw-w64-common ships one as /usr/share/mingw-w64/include/winerror.h).
//
// It takes the ERROR_* and RPC_S_*, RPC_E_*, RPC_X_* codes written as plain
// decimal numbers (mingw: `#define ERROR_FILE_NOT_FOUND __MSABI_LONG(2)`),
// the set rust-minidump's WinErrorWindows holds (it was made from the SDK's
// winerror.h with the same filter). When one value has several names, the
// first in the header wins.
//
//	go run ./internal/winerrorgen -o winerror_table.go /usr/share/mingw-w64/include/winerror.h
package main
