// Command wintool prepares the Windows test data (gen.sh):
//
//	wintool fixcv DUMP DIR...   fill each module's empty CodeView record
//	                            from its image's RSDS record
//	wintool reduce [-noexports] IN OUT
//	                            copy a PE image with every section's bytes
//	                            zeroed but .pdata, .xdata and (unless
//	                            -noexports) .edata
//
// fixcv: Wine 8's MiniDumpWriteDump leaves the modules' CodeView records
// empty, where Windows' dbghelp copies each image's debug directory
// record; the image is looked up by file name in the DIRs and used only
// when its TimeDateStamp and SizeOfImage are the module's.
//
// reduce: Wine's DLLs are megabytes; the walk needs only their unwind
// tables and exports. The headers stay as they are, so the code id
// (TimeDateStamp, SizeOfImage) is unchanged.
package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"

	"github.com/minidump-stackwalk/minidump-stackwalk/pe"
)

var le = binary.LittleEndian

func main() {
	var err error
	switch {
	case len(os.Args) >= 4 && os.Args[1] == "fixcv":
		err = fixCV(os.Args[2], os.Args[3:])
	case len(os.Args) == 4 && os.Args[1] == "reduce":
		err = reduce(os.Args[2], os.Args[3], true)
	case len(os.Args) == 5 && os.Args[1] == "reduce" && os.Args[2] == "-noexports":
		err = reduce(os.Args[3], os.Args[4], false)
	default:
		err = fmt.Errorf("usage: wintool fixcv DUMP DIR... | wintool reduce [-noexports] IN OUT")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "wintool:", err)
		os.Exit(1)
	}
}

func fixCV(dumpPath string, dirs []string) error {
	d, err := os.ReadFile(dumpPath)
	if err != nil {
		return err
	}
	if len(d) < 32 || string(d[:4]) != "MDMP" {
		return fmt.Errorf("%s: not a minidump", dumpPath)
	}
	n, dir := int(le.Uint32(d[8:])), int(le.Uint32(d[12:]))
	for i := 0; i < n; i++ {
		e := d[dir+i*12:]
		if le.Uint32(e) != 4 { // ModuleListStream
			continue
		}
		list := int(le.Uint32(e[8:]))
		count := int(le.Uint32(d[list:]))
		for k := 0; k < count; k++ {
			if d, err = fixModule(d, list+4+k*108, dirs); err != nil {
				return err
			}
		}
	}
	return os.WriteFile(dumpPath, d, 0o644)
}

// fixModule appends the image's CodeView record to d and points the
// MINIDUMP_MODULE at off to it, when the module has none.
func fixModule(d []byte, off int, dirs []string) ([]byte, error) {
	m := d[off : off+108]
	if le.Uint32(m[76:]) != 0 {
		return d, nil
	}
	name := baseName(moduleName(d, int(le.Uint32(m[20:]))))
	for _, dir := range dirs {
		img, err := pe.Open(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		defer img.Close()
		if img.TimeDateStamp != le.Uint32(m[16:]) || img.SizeOfImage != le.Uint32(m[8:]) {
			return nil, fmt.Errorf("%s in %s is not the dump's image", name, dir)
		}
		cv, err := img.CodeView()
		if err != nil || cv == nil {
			return d, err // no RSDS: Windows' dbghelp writes none either
		}
		for len(d)%4 != 0 {
			d = append(d, 0)
		}
		le.PutUint32(d[off+76:], uint32(len(cv.Record)))
		le.PutUint32(d[off+80:], uint32(len(d)))
		fmt.Fprintf(os.Stderr, "wintool: %s: CodeView %s %s\n", name, cv.DebugFile(), cv.DebugID())
		return append(d, cv.Record...), nil
	}
	return d, nil
}

func moduleName(d []byte, rva int) string {
	n := int(le.Uint32(d[rva:])) / 2
	u := make([]uint16, n)
	for i := range u {
		u[i] = le.Uint16(d[rva+4+2*i:])
	}
	return string(utf16.Decode(u))
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

func reduce(in, out string, exports bool) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	img, err := pe.Open(in)
	if err != nil {
		return err
	}
	defer img.Close()
	for _, s := range img.Sections {
		switch s.Name {
		case ".pdata", ".xdata":
			continue
		case ".edata":
			if exports {
				continue
			}
		}
		start := int(s.PointerToRawData &^ 0x1ff)
		end := min(start+int(s.SizeOfRawData), len(data))
		if start < end {
			clear(data[start:end])
		}
	}
	return os.WriteFile(out, data, 0o644)
}
