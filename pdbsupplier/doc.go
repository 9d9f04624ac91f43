// Package pdbsupplier is a symfile.Supplier that makes a Windows module's
// symbol file from its PDB: it finds the PDB by the module's debug file
// name and debug id (Locate: flat in a directory, in a Microsoft symbol
// store name.pdb/<id>/name.pdb, in the two-tier layout of stores with an
// index2.txt, compressed as name.pd_ cabinets), uses it only when its GUID
// and age equal the module's debug id, and writes the .sym dumpsyms.WritePDB
// writes (FUNC, lines, INLINE, PUBLIC and, for x86, STACK WIN from FPO and
// FrameData), parsed in memory. So the walker uses a PDB's symbols and
// frame data through the same path as a .sym: chain it after the .sym
// suppliers (symfile.ChainSupplier) for --use-local-debuginfo.
// FileSymbols is the same conversion for one file, the check a
// Microsoft-protocol server's downloads pass (symsrv.WithPDBs) before they
// are cached.
package pdbsupplier
