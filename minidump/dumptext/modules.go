package dumptext

import (
	"fmt"
	"strings"
)

const (
	moduleSize  = 108
	maxCVBytes  = 32768
	maxMiscSize = 32768

	cvPDB70 = 0x53445352
	cvPDB20 = 0x3031424e
	cvELF   = 0x4270454c

	platformWin32Windows = 1
	platformWin32NT      = 2
	platformMac          = 0x8101
	platformIOS          = 0x8102
	platformLinux        = 0x8201
	platformSolaris      = 0x8202
	platformAndroid      = 0x8203
	platformPS3          = 0x8204
	platformNaCl         = 0x8205
	platformFuchsia      = 0x8206
)

// module is a MinidumpModule: the raw MDRawModule and what Breakpad reads
// from it.
type module struct {
	raw          []byte
	name         string
	hasDebugInfo bool
	cv           []byte // the CodeView record once read
	misc         []byte // the misc record once read
}

func (m *module) base() uint64 { return le.Uint64(m.raw) }
func (m *module) size() uint32 { return le.Uint32(m.raw[8:]) }
func (m *module) cvLoc() (uint32, uint32) {
	return le.Uint32(m.raw[76:]), le.Uint32(m.raw[80:])
}
func (m *module) miscLoc() (uint32, uint32) {
	return le.Uint32(m.raw[84:]), le.Uint32(m.raw[88:])
}

// cvSignature is the record's signature; 0 (unknown) for records of 4 bytes
// or less.
func cvSignature(cv []byte) uint32 {
	if len(cv) > 4 {
		return le.Uint32(cv)
	}
	return 0
}

// cvRecord is MinidumpModule::GetCVRecord: the record, read and checked
// once.
func (d *dump) cvRecord(m *module) []byte {
	if m.cv != nil {
		return m.cv
	}
	size, rva := m.cvLoc()
	if size == 0 || !d.c.seek(int64(rva)) || size > maxCVBytes {
		return nil
	}
	cv, ok := d.c.read(int64(size))
	if !ok {
		return nil
	}
	switch cvSignature(cv) {
	case cvPDB70:
		if size < 25 || cv[size-1] != 0 {
			return nil
		}
	case cvPDB20:
		if size < 17 || cv[size-1] != 0 {
			return nil
		}
	}
	m.cv = cv
	return cv
}

// miscRecord is MinidumpModule::GetMiscRecord.
func (d *dump) miscRecord(m *module) []byte {
	if m.misc != nil {
		return m.misc
	}
	size, rva := m.miscLoc()
	if size == 0 || size < 12 || !d.c.seek(int64(rva)) || size > maxMiscSize {
		return nil
	}
	b, ok := d.c.read(int64(size))
	if !ok || le.Uint32(b[4:]) != size {
		return nil
	}
	m.misc = b
	return b
}

// readAux is MinidumpModule::ReadAuxiliaryData; false when the module is
// not valid (its name is unreadable).
func (d *dump) readAux(m *module) bool {
	name, ok := d.readString(int64(le.Uint32(m.raw[20:])))
	if !ok {
		return false
	}
	m.name = name
	if size, _ := m.cvLoc(); size != 0 && d.cvRecord(m) == nil {
		return true
	}
	if size, _ := m.miscLoc(); size != 0 && d.miscRecord(m) == nil {
		return true
	}
	m.hasDebugInfo = true
	return true
}

func (d *dump) platform() (uint32, bool) {
	pos := d.c.tell()
	if pos < 0 {
		return 0, false
	}
	si := d.systemInfo()
	if !d.c.seek(pos) || si == nil {
		return 0, false
	}
	switch p := si.platform; p {
	case 0, 1, 2, 3, 0x8000, platformMac, platformIOS, platformLinux, platformSolaris,
		platformAndroid, platformPS3, platformNaCl, platformFuchsia:
		return p, true
	}
	return 0, false
}

func (d *dump) readModules() ([]*module, bool) {
	platform, havePlatform := d.platform()
	n, ok := d.seekStream(typeModuleList)
	if !ok {
		return nil, false
	}
	count, ok := d.listCount(n, moduleSize)
	if !ok {
		return nil, false
	}
	// Grown as entries are read, so that a count the file cannot hold
	// allocates nothing.
	var mods []*module
	for i := uint32(0); i < count; i++ {
		b, ok := d.c.read(moduleSize)
		if !ok || !d.c.charge(entryCost) {
			return nil, false
		}
		m := &module{raw: b}
		if m.size() == 0 || uint64(m.size()) > ^uint64(0)-m.base() {
			return nil, false
		}
		mods = append(mods, m)
	}
	linux := havePlatform && (platform == platformLinux || platform == platformAndroid)
	android := havePlatform && platform == platformAndroid
	ranges := rangeMap{truncateLower: linux}
	var lastEnd uint64
	for i, m := range mods {
		if !d.readAux(m) {
			return nil, false
		}
		base, size := m.base(), uint64(m.size())
		if base == ^uint64(0) {
			return nil, false
		}
		// Duplicates of a module already stored are skipped (crbug 838322).
		if j, ok := ranges.retrieve(base); ok {
			o := mods[j]
			if o.base() == base && o.size() == m.size() && o.name == m.name && d.codeIdentifier(o) == d.codeIdentifier(m) {
				continue
			}
		}
		if !ranges.store(base, size, i) && !(android && strings.HasPrefix(m.name, "/dev/ashmem/")) {
			if !android || base >= lastEnd {
				return nil, false
			}
			// Android's packed relocations: back out the client's shift.
			size -= lastEnd - base
			base = lastEnd
			if !ranges.store(base, size, i) {
				return nil, false
			}
		}
		lastEnd = base + size
	}
	return mods, true
}

func (d *dump) printModules() {
	mods, ok := d.readModules()
	if !ok {
		return
	}
	d.printf("MinidumpModuleList\n  module_count = %d\n\n", int32(len(mods)))
	for i, m := range mods {
		d.printf("module[%d]\n", i)
		d.printModule(m)
	}
}

// codeIdentifier is MinidumpModule::code_identifier.
func (d *dump) codeIdentifier(m *module) string {
	if !m.hasDebugInfo {
		return ""
	}
	si := d.systemInfo()
	if si == nil {
		return ""
	}
	switch si.platform {
	case platformWin32NT, platformWin32Windows:
		return fmt.Sprintf("%08X%x", le.Uint32(m.raw[16:]), m.size())
	case platformAndroid, platformFuchsia, platformLinux:
		if m.cv != nil && cvSignature(m.cv) == cvELF {
			return fmt.Sprintf("%x", m.cv[4:])
		}
		return "id"
	case platformMac, platformIOS, platformSolaris, platformNaCl, platformPS3:
		return "id"
	}
	return ""
}

func guidAgeID(g []byte, age uint32) string {
	return fmt.Sprintf("%08X%04X%04X%X%x", le.Uint32(g), le.Uint16(g[4:]), le.Uint16(g[6:]), g[8:16], age)
}

// debugFile is MinidumpModule::debug_file.
func (d *dump) debugFile(m *module) string {
	if !m.hasDebugInfo {
		return ""
	}
	var file string
	if cv := m.cv; cv != nil {
		switch cvSignature(cv) {
		case cvPDB70:
			file = cbytes(cv[24:])
		case cvPDB20:
			file = cbytes(cv[16:])
		case cvELF:
			file = m.name
		}
	}
	if file == "" && m.misc != nil {
		data := m.misc[12:]
		if m.misc[8] == 0 {
			file = string(data)
		} else if len(data)%2 == 0 {
			file, _ = utf16ToUTF8(units(data))
		}
	}
	return file
}

// debugIdentifier is MinidumpModule::debug_identifier.
func (d *dump) debugIdentifier(m *module) string {
	if !m.hasDebugInfo || m.cv == nil {
		return ""
	}
	cv := m.cv
	switch cvSignature(cv) {
	case cvPDB70:
		return guidAgeID(cv[4:20], le.Uint32(cv[20:]))
	case cvPDB20:
		return fmt.Sprintf("%08X%x", le.Uint32(cv[8:]), le.Uint32(cv[12:]))
	case cvELF:
		var g [16]byte
		copy(g[:], cv[4:])
		return guidAgeID(g[:], 0)
	}
	return ""
}

// version is MinidumpModule::version: the fixed file info's file version.
func version(m *module) string {
	vi := m.raw[24:76]
	if le.Uint32(vi) != 0xfeef04bd || le.Uint32(vi[4:])&0x10000 == 0 {
		return ""
	}
	hi, lo := le.Uint32(vi[8:]), le.Uint32(vi[12:])
	return fmt.Sprintf("%d.%d.%d.%d", hi>>16, hi&0xffff, lo>>16, lo&0xffff)
}

// printModule is MinidumpModule::Print.
func (d *dump) printModule(m *module) {
	r := m.raw
	u32 := func(o int) uint32 { return le.Uint32(r[o:]) }
	p := d.printf
	p("MDRawModule\n")
	p("  base_of_image                   = 0x%x\n", m.base())
	p("  size_of_image                   = 0x%x\n", m.size())
	p("  checksum                        = 0x%x\n", u32(12))
	p("  time_date_stamp                 = 0x%x %s\n", u32(16), utcTime(u32(16)))
	p("  module_name_rva                 = 0x%x\n", u32(20))
	p("  version_info.signature          = 0x%x\n", u32(24))
	p("  version_info.struct_version     = 0x%x\n", u32(28))
	p("  version_info.file_version       = 0x%x:0x%x\n", u32(32), u32(36))
	p("  version_info.product_version    = 0x%x:0x%x\n", u32(40), u32(44))
	p("  version_info.file_flags_mask    = 0x%x\n", u32(48))
	p("  version_info.file_flags         = 0x%x\n", u32(52))
	p("  version_info.file_os            = 0x%x\n", u32(56))
	p("  version_info.file_type          = 0x%x\n", u32(60))
	p("  version_info.file_subtype       = 0x%x\n", u32(64))
	p("  version_info.file_date          = 0x%x:0x%x\n", u32(68), u32(72))
	p("  cv_record.data_size             = %d\n", int32(u32(76)))
	p("  cv_record.rva                   = 0x%x\n", u32(80))
	p("  misc_record.data_size           = %d\n", int32(u32(84)))
	p("  misc_record.rva                 = 0x%x\n", u32(88))
	p("  (code_file)                     = \"%s\"\n", cstr(m.name))
	p("  (code_identifier)               = \"%s\"\n", cstr(d.codeIdentifier(m)))
	d.printCVRecord(d.cvRecord(m))
	d.printMiscRecord(d.miscRecord(m))
	p("  (debug_file)                    = \"%s\"\n", cstr(d.debugFile(m)))
	p("  (debug_identifier)              = \"%s\"\n", d.debugIdentifier(m))
	p("  (version)                       = \"%s\"\n\n", version(m))
}

func (d *dump) printCVRecord(cv []byte) {
	p := d.printf
	switch {
	case cv == nil:
		p("  (cv_record)                     = (null)\n")
	case cvSignature(cv) == cvPDB70:
		p("  (cv_record).cv_signature        = 0x%x\n", le.Uint32(cv))
		p("  (cv_record).signature           = %s\n", guidString(cv[4:20]))
		p("  (cv_record).age                 = %d\n", int32(le.Uint32(cv[20:])))
		p("  (cv_record).pdb_file_name       = \"%s\"\n", cbytes(cv[24:]))
	case cvSignature(cv) == cvPDB20:
		sig := le.Uint32(cv[8:])
		p("  (cv_record).cv_header.signature = 0x%x\n", le.Uint32(cv))
		p("  (cv_record).cv_header.offset    = 0x%x\n", le.Uint32(cv[4:]))
		p("  (cv_record).signature           = 0x%x %s\n", sig, utcTime(sig))
		p("  (cv_record).age                 = %d\n", int32(le.Uint32(cv[12:])))
		p("  (cv_record).pdb_file_name       = \"%s\"\n", cbytes(cv[16:]))
	case cvSignature(cv) == cvELF:
		p("  (cv_record).cv_signature        = 0x%x\n", le.Uint32(cv))
		p("  (cv_record).build_id            = %x\n", cv[4:])
	default:
		p("  (cv_record)                     = %x\n", cv)
	}
}

func (d *dump) printMiscRecord(misc []byte) {
	p := d.printf
	if misc == nil {
		p("  (misc_record)                   = (null)\n")
		return
	}
	p("  (misc_record).data_type         = 0x%x\n", le.Uint32(misc))
	p("  (misc_record).length            = 0x%x\n", le.Uint32(misc[4:]))
	p("  (misc_record).unicode           = %d\n", misc[8])
	if misc[8] != 0 {
		p("  (misc_record).data              = \"%s\"\n", cstr(fixedUTF16(misc[12:])))
	} else {
		// Breakpad's %s runs on past a record without a NUL; this stops.
		p("  (misc_record).data              = \"%s\"\n", cbytes(misc[12:]))
	}
}
