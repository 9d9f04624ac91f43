// Package pesupplier gives the walkers what a Windows module's own PE
// image (.exe, .dll) tells without a symbol file: its exception
// directory's unwind rules, its code and its exports' names.
//
// A Supplier finds images under its roots by the module's code file name,
// flat or in a Microsoft symbol store's name.dll/<TIMESTAMP><SIZEOFIMAGE>/
// name.dll layout, and uses one only when its code id (TimeDateStamp and
// SizeOfImage) equals the dump's. Symbols returns a symbol file of the
// image's exported functions (FUNC records whose extent is their
// RUNTIME_FUNCTION's, so an export never names a later static function);
// Native returns the image as a walker.NativeModule whose CFIRules
// evaluate .pdata/.xdata at an address as Windows' RtlVirtualUnwind does:
// x64 unwind codes (chained entries, frame registers, machine frames),
// in frame 0 only the prolog codes already executed, and an epilog
// recognised by its instruction bytes undone from the pc on; ARM64
// packed and .xdata codes with prolog and epilog scopes the same way.
// The rules are STACK CFI rules, so the walkers apply them as they apply
// a .sym's. Chain it after the .sym suppliers (processor.Options.Native,
// cmd/minidump-stackwalk's --use-local-debuginfo/--debuginfo-path); see
// docs/windows.md.
package pesupplier
