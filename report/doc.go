// Package report prints a processed dump, a *processor.ProcessState, in the
// text formats of Breakpad's minidump_stackwalk: the human-readable report
// (WriteHuman, with the -s, -c, -t and -d variants of HumanOptions), the
// pipe-delimited machine format (WriteMachine, -m) and the brief
// requesting-thread summary (WriteBrief, -b); and, beside Breakpad's
// formats, the JSON report in rust-minidump's schema (docs/json-schema.md;
// JSONReport and its parts are the document): WriteStateJSON prints it
// compact or pretty while it builds it, holding one entry of the long lists
// (modules, unloaded modules, threads) at a time, so the report costs no
// memory in proportion to the dump.
//
// Every printer reads only the ProcessState: it makes no decision about the
// walk and reads nothing from the dump (frames, trust, symbols, module
// order and the JSON-only facts arrive computed; module names and frame
// addresses are the model's methods). The text printers read the model's
// own threads, frames and modules; the little they derive from it is
// computed once per report and copies no fact: the threads Breakpad
// prints, numbered as it numbers them (the dump-writing thread left out),
// and which modules its module list holds (only those name frames).
// Untrusted text, from the dump or the symbol files, is escaped for a
// terminal as it is printed. Byte-for-byte agreement with Breakpad is the
// goal, checked against outputs of Breakpad's own minidump_stackwalk.
//
// One addition to Breakpad's text: ProcessState.CrashAnalysis (the
// faulting instruction and its accesses, from package crashinfo) adds
// rust-minidump's crash-analysis lines after the crash address; the
// processor leaves it nil in Breakpad's mode.
package report
