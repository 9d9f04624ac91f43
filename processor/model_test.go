package processor

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestModelSharesOnlyDumpValues keeps the model's boundary (package doc,
// docs/architecture.md): what ProcessState exposes is processor's own
// types, plain values of the packages below it, and, of package minidump,
// only the decoded values listed here, which own their memory (the
// register context and the records of Facts). A raw stream record (such as
// minidump.Exception, which holds a context pointer and the raw counts), a
// reader or a lookup structure may not appear: a new minidump type in the
// model is a decision to add here, with its reason in the package doc.
func TestModelSharesOnlyDumpValues(t *testing.T) {
	const minidumpPkg = "github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	allowed := []string{
		"Arch", "Platform", // numbers
		"Context",                                                          // registers: fixed arrays and bits
		"LSBRelease", "MacCrashInfoRecord", "Handle", "ProcLimit", "Limit", // Facts' records, copied
		"CrashpadInfo", "CrashpadModuleInfo", "CrashpadAnnotation", "KeyValue", "GUID", // Facts.Crashpad, copied
	}
	var found []string
	seen := map[reflect.Type]bool{}
	var visit func(t reflect.Type, path string)
	visit = func(typ reflect.Type, path string) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		if typ.PkgPath() == minidumpPkg {
			found = append(found, typ.Name())
			if !slices.Contains(allowed, typ.Name()) {
				t.Errorf("%s is minidump.%s: the model shares only minidump's decoded values %v", path, typ.Name(), allowed)
			}
		}
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			if typ.Kind() == reflect.Map {
				visit(typ.Key(), path+"[key]")
			}
			visit(typ.Elem(), path+"[]")
		case reflect.Struct:
			for i := range typ.NumField() {
				if f := typ.Field(i); f.IsExported() {
					visit(f.Type, path+"."+f.Name)
				}
			}
		}
	}
	visit(reflect.TypeFor[ProcessState](), "ProcessState")
	// The walk is reached too: the model's frames carry registers.
	if !slices.Contains(found, "Context") {
		t.Errorf("found minidump types %s, not the frames' Context: does the walk visit the model?", strings.Join(found, ", "))
	}
}
