// Package processor turns a minidump and a symbol supplier into a
// ProcessState: system information, crash reason, every thread's walked and
// symbolized stack, and the modules with their symbol status — everything the
// printers in package report need.
//
// It follows Breakpad's MinidumpProcessor: the requesting (crashed) thread is
// walked from the exception stream's context, the thread that wrote the dump
// (BreakpadInfo) is not walked, and a thread's stack memory is its stack
// descriptor, or the memory-list region holding the descriptor's start.
// Threads are walked in parallel by a bounded number of workers.
//
// One deliberate difference: when one image is mapped as several module
// entries with the same code file and debug identifier (node's text split
// into separate mappings), symbols are looked up relative to the entry that
// maps the image's start, as the symbol file's addresses are; Breakpad uses
// the entry containing the address and misnames such frames.
package processor
