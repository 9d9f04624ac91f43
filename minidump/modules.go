package minidump

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// FixedFileInfo is VS_FIXEDFILEINFO.
type FixedFileInfo struct {
	Signature, StructVersion           uint32
	FileVersionHi, FileVersionLo       uint32
	ProductVersionHi, ProductVersionLo uint32
	FileFlagsMask, FileFlags           uint32
	FileOS, FileType, FileSubtype      uint32
	FileDateHi, FileDateLo             uint32
}

// CodeView record signatures.
const (
	CVSignaturePDB70 = 0x53445352 // "RSDS"
	CVSignaturePDB20 = 0x3031424e // "NB10"
	CVSignatureELF   = 0x4270454c // "LEpB": Breakpad's ELF build id record
)

// maxDebugRecord is Breakpad's limit on CodeView and misc records.
const maxDebugRecord = 32768

// Module is MINIDUMP_MODULE with the strings Breakpad derives from it.
type Module struct {
	Base          uint64
	Size          uint32
	Checksum      uint32
	TimeDateStamp uint32
	Name          string // the code file path
	VersionInfo   FixedFileInfo
	CVRecord      []byte // raw CodeView record, nil when absent
	MiscRecord    []byte // raw IMAGE_DEBUG_MISC record, nil when absent

	Version   string // "5.1.2600.2180", or "" without fixed file info
	CodeID    string // as Breakpad's code_identifier()
	DebugFile string // as Breakpad's debug_file() (full path; printers strip it)
	DebugID   string // as Breakpad's debug_identifier()

	// Err is set when the module's name or debug records could not be read;
	// Breakpad then prints empty debug strings.
	Err error

	nameErr bool // the name could not be read: Breakpad drops the whole list
}

// End is the address one past the module.
func (m *Module) End() uint64 { return m.Base + uint64(m.Size) }

// Modules parses the module list in file order. The readable modules are
// returned with any error.
func (f *File) Modules() ([]Module, error) {
	b, s, err := f.stream(StreamModuleList)
	if err != nil {
		return nil, err
	}
	const entry = 108
	n, start, cerr := listCount(b, s, entry)
	platform := Platform(0xffffffff)
	if si, err := f.SystemInfo(); err == nil {
		platform = si.Platform
	}
	var errs []error
	if cerr != nil {
		errs = append(errs, cerr)
	}
	mods := make([]Module, 0, n)
	for i := 0; i < n; i++ {
		eoff := start + i*entry
		e := b[eoff:]
		m := Module{
			Base:          le.Uint64(e[0:]),
			Size:          le.Uint32(e[8:]),
			Checksum:      le.Uint32(e[12:]),
			TimeDateStamp: le.Uint32(e[16:]),
		}
		vi := make([]uint32, 13)
		for j := range vi {
			vi[j] = le.Uint32(e[24+4*j:])
		}
		m.VersionInfo = FixedFileInfo{vi[0], vi[1], vi[2], vi[3], vi[4], vi[5], vi[6], vi[7], vi[8], vi[9], vi[10], vi[11], vi[12]}
		if m.Size == 0 || m.Base+uint64(m.Size) < m.Base {
			errs = append(errs, &FormatError{s.Off + int64(eoff), s.Name, fmt.Sprintf("module %d: bad range %#x+%#x", i, m.Base, m.Size)})
		}
		m.Version = m.VersionInfo.version()
		name, err := f.readString(le.Uint32(e[20:]), s.Name)
		if err != nil {
			m.Err, m.nameErr = err, true
			errs = append(errs, err)
			mods = append(mods, m)
			continue
		}
		m.Name = name
		cvSize, cvRVA := le.Uint32(e[76:]), le.Uint32(e[80:])
		miscSize, miscRVA := le.Uint32(e[84:]), le.Uint32(e[88:])
		if m.CVRecord, err = f.debugRecord(cvSize, cvRVA, s.Name, "CodeView"); err == nil {
			m.MiscRecord, err = f.debugRecord(miscSize, miscRVA, s.Name, "misc")
		}
		if err == nil {
			err = checkCVRecord(m.CVRecord, int64(cvRVA), s.Name)
		}
		if err == nil && m.MiscRecord != nil {
			// Breakpad needs the fixed part and a Length field equal to the record size.
			if len(m.MiscRecord) < 12 || le.Uint32(m.MiscRecord[4:]) != uint32(len(m.MiscRecord)) {
				err = &FormatError{int64(miscRVA), s.Name, "misc debug record: bad length"}
			}
		}
		if err != nil {
			m.Err = err
			errs = append(errs, err)
		} else {
			m.CodeID = codeIdentifier(&m, platform)
			m.DebugFile = debugFile(&m)
			m.DebugID = debugIdentifier(&m)
		}
		mods = append(mods, m)
	}
	return mods, errors.Join(errs...)
}

func (f *File) debugRecord(size, rva uint32, stream, what string) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	if size > maxDebugRecord {
		return nil, &FormatError{int64(rva), stream, fmt.Sprintf("%s record size %d exceeds %d", what, size, maxDebugRecord)}
	}
	b, err := f.bytesAt(int64(rva), int64(size), stream)
	if err != nil {
		return nil, err
	}
	return slices.Clone(b), nil
}

// cvSignature is the record's signature, 0 when it is too short to have one
// (Breakpad needs more than 4 bytes).
func cvSignature(cv []byte) uint32 {
	if len(cv) > 4 {
		return le.Uint32(cv)
	}
	return 0
}

// checkCVRecord applies Breakpad's validity rules: PDB records need their
// fixed part plus a NUL-terminated file name.
func checkCVRecord(cv []byte, off int64, stream string) error {
	bad := func(msg string) error { return &FormatError{off, stream, "CodeView record: " + msg} }
	switch cvSignature(cv) {
	case CVSignaturePDB70:
		if len(cv) < 24+1 {
			return bad("PDB70 record too short")
		}
		if cv[len(cv)-1] != 0 {
			return bad("PDB70 file name not NUL-terminated")
		}
	case CVSignaturePDB20:
		if len(cv) < 16+1 {
			return bad("PDB20 record too short")
		}
		if cv[len(cv)-1] != 0 {
			return bad("PDB20 file name not NUL-terminated")
		}
	}
	return nil
}

func (v *FixedFileInfo) version() string {
	if v.Signature != 0xfeef04bd || v.StructVersion&0x00010000 == 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d.%d.%d", v.FileVersionHi>>16, v.FileVersionHi&0xffff, v.FileVersionLo>>16, v.FileVersionLo&0xffff)
}

func codeIdentifier(m *Module, p Platform) string {
	switch p {
	case PlatformWin32NT, PlatformWin32Windows:
		return fmt.Sprintf("%08X%x", m.TimeDateStamp, m.Size)
	case PlatformAndroid, PlatformFuchsia, PlatformLinux:
		if cvSignature(m.CVRecord) == CVSignatureELF {
			return hex.EncodeToString(m.CVRecord[4:]) // fmt's %x of the bytes
		}
		return "id"
	case PlatformMacOSX, PlatformIOS, PlatformSolaris, PlatformNaCl, PlatformPS3:
		return "id"
	}
	return ""
}

func debugFile(m *Module) string {
	cv := m.CVRecord
	var file string
	switch cvSignature(cv) {
	case CVSignaturePDB70:
		file = cString(cv[24:])
	case CVSignaturePDB20:
		file = cString(cv[16:])
	case CVSignatureELF:
		file = m.Name
	}
	if file == "" && len(m.MiscRecord) >= 12 {
		// IMAGE_DEBUG_MISC: DataType, Length, Unicode, 3 reserved, then Data.
		data := m.MiscRecord[12:]
		// Breakpad keeps the whole buffer but prints it as a C string: up to the first NUL.
		if m.MiscRecord[8] == 0 {
			file = cString(data)
		} else if len(data)%2 == 0 {
			file = cString16(data)
		}
	}
	return file
}

// guidAge is Breakpad's identifier of a GUID and age:
// fmt.Sprintf("%08X%04X%04X%X%x", data1, data2, data3, g[8:16], age),
// without fmt's work (every module of every dump; TestGUIDAgeMatchesFmt).
func guidAge(g []byte, age uint32) string {
	const upper = "0123456789ABCDEF"
	var b [48]byte
	out := b[:0]
	for _, v := range [...]struct {
		x      uint32
		digits int
	}{{le.Uint32(g), 8}, {uint32(le.Uint16(g[4:])), 4}, {uint32(le.Uint16(g[6:])), 4}} {
		for i := v.digits - 1; i >= 0; i-- {
			out = append(out, upper[v.x>>(4*i)&0xf])
		}
	}
	for _, c := range g[8:16] {
		out = append(out, upper[c>>4], upper[c&0xf])
	}
	return string(strconv.AppendUint(out, uint64(age), 16))
}

func debugIdentifier(m *Module) string {
	cv := m.CVRecord
	switch cvSignature(cv) {
	case CVSignaturePDB70:
		return guidAge(cv[4:20], le.Uint32(cv[20:]))
	case CVSignaturePDB20:
		return fmt.Sprintf("%08X%x", le.Uint32(cv[8:]), le.Uint32(cv[12:]))
	case CVSignatureELF:
		var g [16]byte
		copy(g[:], cv[4:])
		return guidAge(g[:], 0)
	}
	return ""
}

// UnloadedModule is MINIDUMP_UNLOADED_MODULE.
type UnloadedModule struct {
	Base          uint64
	Size          uint32
	Checksum      uint32
	TimeDateStamp uint32
	Name          string
}

// UnloadedModules parses MINIDUMP_UNLOADED_MODULE_LIST (a header with its own sizes).
func (f *File) UnloadedModules() ([]UnloadedModule, error) {
	b, s, err := f.stream(StreamUnloadedModuleList)
	if err != nil {
		return nil, err
	}
	if len(b) < 12 {
		return nil, &FormatError{s.Off, s.Name, "header truncated"}
	}
	hdrSize, entSize, n := le.Uint32(b), le.Uint32(b[4:]), int64(le.Uint32(b[8:]))
	if hdrSize < 12 || entSize < 24 || int64(hdrSize) > int64(len(b)) {
		return nil, &FormatError{s.Off, s.Name, fmt.Sprintf("bad header size %d / entry size %d", hdrSize, entSize)}
	}
	var errs []error
	if fit := (int64(len(b)) - int64(hdrSize)) / int64(entSize); n > fit {
		errs = append(errs, &FormatError{s.Off, s.Name, fmt.Sprintf("count %d exceeds stream (%d fit)", n, fit)})
		n = fit
	}
	mods := make([]UnloadedModule, 0, n)
	for i := int64(0); i < n; i++ {
		e := b[int64(hdrSize)+i*int64(entSize):]
		m := UnloadedModule{Base: le.Uint64(e), Size: le.Uint32(e[8:]), Checksum: le.Uint32(e[12:]), TimeDateStamp: le.Uint32(e[16:])}
		name, err := f.readString(le.Uint32(e[20:]), s.Name)
		if err != nil {
			errs = append(errs, err)
		}
		m.Name = name
		mods = append(mods, m)
	}
	return mods, errors.Join(errs...)
}

// MainModule returns the index of the main (executable) module in file order:
// Breakpad takes the first module of the list. It is -1 for an empty list.
func MainModule(mods []Module) int {
	if len(mods) == 0 {
		return -1
	}
	return 0
}
