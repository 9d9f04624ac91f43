//go:build linux

// Command symload measures how long symfile.Open takes to make a symbol file
// ready for lookups and the process's peak RSS, then runs a few lookups.
//
//	go run ./scripts/bench/symload FILE.sym [ADDR...]
//
// It prints one line: bytes, seconds, MB/s, peak RSS (KiB) and RSS/size.
package main
