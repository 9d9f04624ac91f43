package main

// Microsoft symbol servers (issue 24): every symbol server is also asked
// for a Windows module's PDB (name.pdb/<id>/name.pdb, then name.pd_) when
// it has no .sym (symsrv.WithPDBs, checked and converted by pdbsupplier),
// and a symbol server may be written as _NT_SYMBOL_PATH writes it.

import "strings"

// msSymbolPaths rewrites, in place, symbol server paths written as
// Microsoft's tools write them ("srv*C:\symbols*https://host/path",
// "symsrv*symsrv.dll*cache*https://host/path") to their server URL (the
// last element). The downstream stores they name are not read: downloads
// are kept in --symbols-cache, in the same layout.
func msSymbolPaths(lists ...[]string) {
	for _, l := range lists {
		for i, p := range l {
			lower := strings.ToLower(p)
			if !strings.HasPrefix(lower, "srv*") && !strings.HasPrefix(lower, "symsrv*") {
				continue
			}
			if j := strings.LastIndexByte(p, '*'); j >= 0 && isSymbolURL(p[j+1:]) {
				l[i] = p[j+1:]
			}
		}
	}
}
