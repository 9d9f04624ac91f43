package pdb

import (
	"fmt"
	"strings"
)

// crossImport is an entry of a module's DEBUG_S_CROSSSCOPEIMPORTS: the ids
// it uses of another module, named by its /names offset.
type crossImport struct {
	module uint32
	ids    []uint32
}

// maxCrossIDs bounds a module's imported and exported ids.
const maxCrossIDs = 1 << 22

func (mi *ModuleInfo) readImports(s int, b []byte, base int64) error {
	r := newReader(s, b, base)
	total := 0
	for r.left() > 0 && r.err == nil {
		imp := crossImport{module: r.u32()}
		n := r.count(r.u32(), 4, "imported ids")
		if total += n; total > maxCrossIDs {
			return errAt(s, base, "more than %d imported ids", maxCrossIDs)
		}
		for range n {
			imp.ids = append(imp.ids, r.u32())
		}
		mi.imports = append(mi.imports, imp)
	}
	return r.err
}

func (mi *ModuleInfo) readExports(s int, b []byte, base int64) error {
	r := newReader(s, b, base)
	n := r.count(uint32(len(b)/8), 8, "exported ids")
	if n > maxCrossIDs {
		return errAt(s, base, "more than %d exported ids", maxCrossIDs)
	}
	mi.exports = make(map[uint32]uint32, n)
	for range n {
		local, global := r.u32(), r.u32()
		mi.exports[local] = global
	}
	return r.err
}

// ResolveID turns an id used in module mi into an IPI index: ids with the
// high bit set are cross-module references (a linker's /DEBUG:FASTLINK or
// LTCG output) to the id another module exports: bits 20-30 pick mi's
// import entry, bits 0-19 the id in it, which the named module's exports
// map to the IPI.
func (f *File) ResolveID(mi *ModuleInfo, id uint32) (uint32, error) {
	if id&0x80000000 == 0 {
		return id, nil
	}
	mod, idx := int(id>>20)&0x7ff, int(id&0xfffff)
	if mod >= len(mi.imports) || idx >= len(mi.imports[mod].ids) {
		return 0, fmt.Errorf("pdb: cross-module id %#x outside the module's %d imports", id, len(mi.imports))
	}
	name, err := mi.strs.At(mi.imports[mod].module)
	if err != nil {
		return 0, err
	}
	other, err := f.moduleNamed(name)
	if err != nil {
		return 0, err
	}
	local := mi.imports[mod].ids[idx]
	global, ok := other.exports[local]
	if !ok {
		return 0, fmt.Errorf("pdb: module %s does not export id %#x", name, local)
	}
	return global, nil
}

// moduleNamed reads (once) the module whose name is name, ignoring case:
// the imports name modules by their lower-cased object path.
func (f *File) moduleNamed(name string) (*ModuleInfo, error) {
	d, err := f.DBI()
	if err != nil {
		return nil, err
	}
	for i := range d.Modules {
		if strings.EqualFold(d.Modules[i].Name, name) || strings.EqualFold(d.Modules[i].ObjFile, name) {
			return f.cachedModuleInfo(&d.Modules[i])
		}
	}
	return nil, fmt.Errorf("pdb: no module %s", name)
}

func (f *File) cachedModuleInfo(m *Module) (*ModuleInfo, error) {
	if mi, ok := f.modules[m.SymStream]; ok {
		return mi, nil
	}
	mi, err := f.ModuleInfo(m)
	if err != nil {
		return nil, err
	}
	if f.modules == nil {
		f.modules = map[uint16]*ModuleInfo{}
	}
	f.modules[m.SymStream] = mi
	return mi, nil
}
