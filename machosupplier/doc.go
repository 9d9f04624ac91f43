// Package machosupplier is a symfile.Supplier that makes a macOS or iOS
// module's symbol file from its own Mach-O binary and dSYM bundle, found
// by the module's UUID (the debug id of its CodeView record, as Crashpad
// writes it): the .sym dumpsyms.WriteMachO writes for them (FILE, FUNC,
// line and INLINE records from the dSYM's DWARF, PUBLIC records from the
// symbol table, STACK CFI from compact unwind and __eh_frame), parsed in
// memory. Chain it after the .sym suppliers, as elfsupplier for ELF.
//
// Where it looks (Locator), in order, taking only files whose UUID is the
// module's (one slice of a universal file):
//   - with UseModulePath, the path the dump names and PATH.dSYM beside it;
//   - in each root: NAME and NAME.dSYM (NAME the module's file name, then
//     its debug file name), and the UUID-keyed layouts
//     xx/yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy/{executable,debuginfo} (Sentry's
//     symbolicator "unified" layout, lower-case hex) and
//     XXXX/XXXX/XXXX/XXXX/XXXX/XXXXXXXXXXXX (lldb's DBGFileMappedPaths:
//     upper-case hex; the entry is the dSYM's DWARF file, the .dSYM bundle
//     or a link to either).
//
// A binary gives the unwind tables, a dSYM the DWARF; either alone is
// used (a dSYM alone gives symbols and no STACK CFI). CheckFile and
// FromFiles do the same for files found elsewhere: the symbol-server
// client checks and reads with them the files it downloads
// (symsrv.WithMachO).
package machosupplier
