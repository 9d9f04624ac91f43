package pesupplier

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/pe"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// symText writes the image's exports as a Breakpad symbol file: MODULE
// and INFO CODE_ID as Breakpad's Windows dump_syms writes them, then one
// FUNC record per exported function (the first name of an address) whose
// extent is its RUNTIME_FUNCTION's, or up to the next function start
// native knows: a PUBLIC record would extend over the static functions
// after it, which exports do not name.
func symText(m symfile.ModuleKey, img *pe.File, name string, exports []pe.Export, native *Module) []byte {
	var b bytes.Buffer
	arch := map[uint16]string{pe.MachineAMD64: "x86_64", pe.MachineI386: "x86", pe.MachineARM64: "arm64", pe.MachineARM: "arm"}[img.Machine]
	if arch == "" {
		arch = "unknown"
	}
	debugFile, debugID := m.DebugFile, m.DebugID
	if cv, err := img.CodeView(); err == nil && cv != nil {
		debugFile, debugID = cv.DebugFile(), cv.DebugID()
	}
	if debugID == "" {
		debugID = "000000000000000000000000000000000"
	}
	if debugFile == "" {
		debugFile = name
	}
	fmt.Fprintf(&b, "MODULE windows %s %s %s\n", arch, debugID, debugFile)
	fmt.Fprintf(&b, "INFO CODE_ID %s %s\n", img.CodeID(), name)
	last := uint32(0)
	for _, e := range exports {
		if sec := img.SectionAt(e.RVA); e.RVA == 0 || e.RVA == last || sec == nil || !sec.Executable() {
			continue // forwarders, aliases, exported data
		}
		last = e.RVA
		n := strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return '?' // a hostile name must not end the record
			}
			return r
		}, e.Name)
		if n == "" {
			n = fmt.Sprintf("#%d", e.Ordinal)
		}
		if size := native.extent(e.RVA); size > 0 {
			fmt.Fprintf(&b, "FUNC %x %x 0 %s\n", e.RVA, size, n)
		}
	}
	return b.Bytes()
}
