package dumptext

import "sort"

// sysInfo is MDRawSystemInfo, read once.
type sysInfo struct {
	raw      []byte
	arch     uint16
	platform uint32
}

// systemInfo is Minidump::GetSystemInfo: nil when the stream is absent or
// not 56 bytes. Only a successful read is kept, as Breakpad keeps it.
func (d *dump) systemInfo() *sysInfo {
	if d.sys != nil {
		return d.sys
	}
	n, ok := d.seekStream(typeSystemInfo)
	if !ok || n != 56 {
		return nil
	}
	b, ok := d.c.read(56)
	if !ok {
		return nil
	}
	d.sys = &sysInfo{raw: b, arch: le.Uint16(b), platform: le.Uint32(b[20:])}
	return d.sys
}

// cpuName names the system info's architecture; "" for another.
func cpuName(arch uint16) string {
	switch arch {
	case archX86, archX86Win64:
		return "x86"
	case archAMD64:
		return "x86-64"
	case archPPC:
		return "ppc"
	case archPPC64:
		return "ppc64"
	case archSPARC:
		return "sparc"
	case archARM:
		return "arm"
	case archARM64, archARM64Old:
		return "arm64"
	case archRISCV:
		return "riscv"
	case archRISCV64:
		return "riscv64"
	}
	return ""
}

// osName names the system info's platform; "" for another.
func osName(platform uint32) string {
	switch platform {
	case platformWin32NT, platformWin32Windows:
		return "windows"
	case platformMac:
		return "mac"
	case platformIOS:
		return "ios"
	case platformLinux:
		return "linux"
	case platformSolaris:
		return "solaris"
	case platformAndroid:
		return "android"
	case platformPS3:
		return "ps3"
	case platformNaCl:
		return "nacl"
	case platformFuchsia:
		return "fuchsia"
	}
	return ""
}

func (d *dump) printSystemInfo() {
	si := d.systemInfo()
	if si == nil {
		return
	}
	r := si.raw
	u32 := func(o int) uint32 { return le.Uint32(r[o:]) }
	p := d.printf
	x86 := si.arch == archX86 || si.arch == archX86Win64
	p("MDRawSystemInfo\n")
	p("  processor_architecture                     = 0x%x (%s)\n", si.arch, cpuName(si.arch))
	p("  processor_level                            = %d\n", le.Uint16(r[2:]))
	p("  processor_revision                         = 0x%x\n", le.Uint16(r[4:]))
	p("  number_of_processors                       = %d\n", r[6])
	p("  product_type                               = %d\n", r[7])
	p("  major_version                              = %d\n", int32(u32(8)))
	p("  minor_version                              = %d\n", int32(u32(12)))
	p("  build_number                               = %d\n", int32(u32(16)))
	p("  platform_id                                = 0x%x (%s)\n", si.platform, osName(si.platform))
	p("  csd_version_rva                            = 0x%x\n", u32(24))
	p("  suite_mask                                 = 0x%x\n", le.Uint16(r[28:]))
	if x86 {
		p("  cpu.x86_cpu_info (valid):\n")
	} else {
		p("  cpu.x86_cpu_info (invalid):\n")
	}
	for i := 0; i < 3; i++ {
		p("  cpu.x86_cpu_info.vendor_id[%d]              = 0x%x\n", i, u32(32+4*i))
	}
	p("  cpu.x86_cpu_info.version_information       = 0x%x\n", u32(44))
	p("  cpu.x86_cpu_info.feature_information       = 0x%x\n", u32(48))
	p("  cpu.x86_cpu_info.amd_extended_cpu_features = 0x%x\n", u32(52))
	if !x86 {
		p("  cpu.other_cpu_info (valid):\n")
		for i := 0; i < 2; i++ {
			p("  cpu.other_cpu_info.processor_features[%d]   = 0x%x\n", i, le.Uint64(r[32+8*i:]))
		}
	}
	if csd, ok := d.readString(int64(u32(24))); ok {
		p("  (csd_version)                              = \"%s\"\n", cstr(csd))
	} else {
		p("  (csd_version)                              = (null)\n")
	}
	if x86 {
		p("  (cpu_vendor)                               = \"%s\"\n", cbytes(r[32:44]))
	} else {
		p("  (cpu_vendor)                               = (null)\n")
	}
	p("\n")
}

func (d *dump) printException() {
	n, ok := d.seekStream(typeException)
	if !ok || n != 168 {
		return
	}
	e, ok := d.c.read(168)
	if !ok {
		return
	}
	p := d.printf
	nparams := le.Uint32(e[32:])
	p("MDException\n")
	p("  thread_id                                  = 0x%x\n", le.Uint32(e))
	p("  exception_record.exception_code            = 0x%x\n", le.Uint32(e[8:]))
	p("  exception_record.exception_flags           = 0x%x\n", le.Uint32(e[12:]))
	p("  exception_record.exception_record          = 0x%x\n", le.Uint64(e[16:]))
	p("  exception_record.exception_address         = 0x%x\n", le.Uint64(e[24:]))
	p("  exception_record.number_parameters         = %d\n", int32(nparams))
	// Breakpad prints number_parameters entries of the 15-entry array,
	// running on into the context location and past the structure into its
	// heap; only the array is printed here.
	for i := uint32(0); i < nparams && i < 15; i++ {
		p("  exception_record.exception_information[%2d] = 0x%x\n", i, le.Uint64(e[40+8*i:]))
	}
	ctxSize, ctxRVA := le.Uint32(e[160:]), le.Uint32(e[164:])
	p("  thread_context.data_size                   = %d\n", int32(ctxSize))
	p("  thread_context.rva                         = 0x%x\n", ctxRVA)
	d.printContextAt(ctxSize, ctxRVA)
}

func (d *dump) printAssertion() {
	n, ok := d.seekStream(typeAssertionInfo)
	if !ok || n != 776 {
		return
	}
	a, ok := d.c.read(776)
	if !ok {
		return
	}
	p := d.printf
	p("MDAssertion\n")
	p("  expression                                 = %s\n", cstr(fixedUTF16(a[0:256])))
	p("  function                                   = %s\n", cstr(fixedUTF16(a[256:512])))
	p("  file                                       = %s\n", cstr(fixedUTF16(a[512:768])))
	p("  line                                       = %d\n", le.Uint32(a[768:]))
	p("  type                                       = %d\n\n", le.Uint32(a[772:]))
}

// Sizes of MINIDUMP_MISC_INFO's versions 1 to 5.
const (
	miscSize1 = 24
	miscSize2 = 44
	miscSize3 = 232
	miscSize4 = 832
	miscSize5 = 1364
)

func (d *dump) printMiscInfo() {
	n, ok := d.seekStream(typeMiscInfo)
	if !ok {
		return
	}
	size := n
	switch n {
	case miscSize1, miscSize2, miscSize3, miscSize4, miscSize5:
	default:
		if n < miscSize5 {
			return
		}
		size = miscSize5
	}
	b, ok := d.c.read(int64(size))
	if !ok {
		return
	}
	m := make([]byte, 1368) // the zeroed struct Breakpad reads into
	copy(m, b)
	u32 := func(o int) uint32 { return le.Uint32(m[o:]) }
	if u32(0) != n {
		return
	}
	infoSize, flags := u32(0), u32(4)
	p := d.printf
	orInvalid := func(name string, bit uint32, format string, v uint32) {
		if flags&bit == 0 {
			p("  %-28s = (invalid)\n", name)
			return
		}
		if format == "%d" {
			p("  %-28s = %d\n", name, int32(v))
		} else {
			p("  %-28s = 0x%x\n", name, v)
		}
	}
	p("MDRawMiscInfo\n")
	p("  size_of_info                 = %d\n", int32(infoSize))
	p("  flags1                       = 0x%x\n", flags)
	orInvalid("process_id", 0x1, "%d", u32(8))
	if flags&0x2 != 0 {
		p("  process_create_time          = 0x%x %s\n", u32(12), utcTime(u32(12)))
	} else {
		p("  process_create_time          = (invalid)\n")
	}
	orInvalid("process_user_time", 0x2, "%d", u32(16))
	orInvalid("process_kernel_time", 0x2, "%d", u32(20))
	if infoSize > miscSize1 {
		for i, name := range []string{"processor_max_mhz", "processor_current_mhz", "processor_mhz_limit", "processor_max_idle_state", "processor_current_idle_state"} {
			orInvalid(name, 0x4, "%d", u32(24+4*i))
		}
	}
	if infoSize > miscSize2 {
		orInvalid("process_integrity_level", 0x10, "%x", u32(44))
		orInvalid("process_execute_flags", 0x20, "%x", u32(48))
		orInvalid("protected_process", 0x80, "%d", u32(52))
		orInvalid("time_zone_id", 0x40, "%d", u32(56))
		d.printTimeZone(m[60:232], flags&0x40 != 0)
	}
	if infoSize > miscSize3 {
		if flags&0x100 != 0 {
			p("  build_string                 = %s\n", cstr(fixedUTF16(m[232:752])))
			p("  dbg_bld_str                  = %s\n", cstr(fixedUTF16(m[752:832])))
		} else {
			p("  build_string                 = (invalid)\n")
			p("  dbg_bld_str                  = (invalid)\n")
		}
	}
	if infoSize > miscSize4 {
		d.printXState(m[832:1364], flags&0x200 != 0)
	}
	p("\n")
}

func (d *dump) printTimeZone(tz []byte, valid bool) {
	p := d.printf
	if !valid {
		for _, n := range []string{"bias", "standard_name", "standard_date", "standard_bias", "daylight_name", "daylight_date", "daylight_bias"} {
			p("  time_zone.%-18s = (invalid)\n", n)
		}
		return
	}
	date := func(b []byte) string {
		u := func(i int) uint16 { return le.Uint16(b[2*i:]) }
		return sprintf("%04d-%02d-%02d (%d) %02d:%02d:%02d.%03d", u(0), u(1), u(3), u(2), u(4), u(5), u(6), u(7))
	}
	p("  time_zone.bias               = %d\n", int32(le.Uint32(tz)))
	p("  time_zone.standard_name      = %s\n", cstr(fixedUTF16(tz[4:68])))
	p("  time_zone.standard_date      = %s\n", date(tz[68:84]))
	p("  time_zone.standard_bias      = %d\n", int32(le.Uint32(tz[84:])))
	p("  time_zone.daylight_name      = %s\n", cstr(fixedUTF16(tz[88:152])))
	p("  time_zone.daylight_date      = %s\n", date(tz[152:168]))
	p("  time_zone.daylight_bias      = %d\n", int32(le.Uint32(tz[168:])))
}

func (d *dump) printXState(x []byte, valid bool) {
	p := d.printf
	if !valid {
		p("  xstate_data.size_of_info     = (invalid)\n")
		p("  xstate_data.context_size     = (invalid)\n")
		p("  xstate_data.enabled_features = (invalid)\n")
		p("  xstate_data.features[]       = (invalid)\n")
		p("  process_cookie               = (invalid)\n")
		return
	}
	features := le.Uint64(x[8:])
	p("  xstate_data.size_of_info     = %d\n", int32(le.Uint32(x)))
	p("  xstate_data.context_size     = %d\n", int32(le.Uint32(x[4:])))
	p("  xstate_data.enabled_features = 0x%x\n", features)
	for i := 0; i < 64; i++ {
		if features>>i&1 != 0 {
			p("  xstate_data.features[%02d]     = { %d, %d }\n", i, int32(le.Uint32(x[16+8*i:])), int32(le.Uint32(x[20+8*i:])))
		}
	}
	if features == 0 {
		p("  xstate_data.features[]       = (empty)\n")
	}
	p("  process_cookie               = %d\n", int32(le.Uint32(x[528:])))
}

func (d *dump) printBreakpadInfo() {
	n, ok := d.seekStream(typeBreakpadInfo)
	if !ok || n != 12 {
		return
	}
	b, ok := d.c.read(12)
	if !ok {
		return
	}
	validity := le.Uint32(b)
	p := d.printf
	p("MDRawBreakpadInfo\n")
	p("  validity             = 0x%x\n", validity)
	for i, name := range []string{"dump_thread_id", "requesting_thread_id"} {
		if validity&(1<<i) != 0 {
			p("  %-20s = 0x%x\n", name, le.Uint32(b[4+4*i:]))
		} else {
			p("  %-20s = (invalid)\n", name)
		}
	}
	p("\n")
}

func (d *dump) printMemoryInfoList() {
	n, ok := d.seekStream(typeMemoryInfoList)
	if !ok || n < 16 {
		return
	}
	h, ok := d.c.read(16)
	if !ok || le.Uint32(h) != 16 || le.Uint32(h[4:]) != 48 {
		return
	}
	count := le.Uint64(h[8:])
	if count > uint64(^uint32(0)/48) || uint64(n) != 16+count*48 {
		return
	}
	var infos [][]byte // grown as read: a count the file cannot hold allocates nothing
	var ranges rangeMap
	for i := 0; uint64(i) < count; i++ {
		b, ok := d.c.read(48)
		if !ok || !d.c.charge(entryCost) {
			return
		}
		base, size := le.Uint64(b), le.Uint64(b[24:])
		if size == 0 || size > ^uint64(0)-base || !ranges.store(base, size, i) {
			return
		}
		infos = append(infos, b)
	}
	p := d.printf
	p("MinidumpMemoryInfoList\n  info_count = %d\n\n", int32(count))
	for i, b := range infos {
		p("info[%d]\nMDRawMemoryInfo\n", i)
		p("  base_address          = 0x%x\n", le.Uint64(b))
		p("  allocation_base       = 0x%x\n", le.Uint64(b[8:]))
		p("  allocation_protection = 0x%x\n", le.Uint32(b[16:]))
		p("  region_size           = 0x%x\n", le.Uint64(b[24:]))
		p("  state                 = 0x%x\n", le.Uint32(b[32:]))
		p("  protection            = 0x%x\n", le.Uint32(b[36:]))
		p("  type                  = 0x%x\n\n", le.Uint32(b[40:]))
	}
}

// Crashpad's info stream, as MinidumpCrashpadInfo reads it.
type crashpadModule struct {
	index, version uint32
	list           []string
	simple         []keyValue
	objects        []annotation
}

type keyValue struct{ key, value string }

type annotation struct {
	name  string
	typ   uint16
	value []byte
}

func (d *dump) printCrashpadInfo() {
	n, ok := d.seekStream(typeCrashpadInfo)
	if !ok || n < 52 {
		return
	}
	info, ok := d.c.read(52)
	if !ok {
		return
	}
	var addressMask uint64
	rest := n - 52
	if rest >= 4 {
		if _, ok := d.c.read(4); !ok {
			return
		}
		rest -= 4
	}
	if rest >= 8 {
		b, ok := d.c.read(8)
		if !ok {
			return
		}
		addressMask = le.Uint64(b)
	}
	var simple []keyValue
	if le.Uint32(info[36:]) != 0 {
		if simple, ok = d.readDictionary(int64(le.Uint32(info[40:]))); !ok {
			return
		}
	}
	var mods []crashpadModule
	if le.Uint32(info[44:]) != 0 {
		if mods, ok = d.readCrashpadModules(int64(le.Uint32(info[48:]))); !ok {
			return
		}
	}
	p := d.printf
	p("MDRawCrashpadInfo\n")
	p("  version = %d\n", int32(le.Uint32(info)))
	p("  report_id = %s\n", guidString(info[4:20]))
	p("  client_id = %s\n", guidString(info[20:36]))
	for _, kv := range simple {
		p("  simple_annotations[\"%s\"] = %s\n", cstr(kv.key), cstr(kv.value))
	}
	for i, m := range mods {
		p("  module_list[%d].minidump_module_list_index = %d\n", i, int32(m.index))
		p("  module_list[%d].version = %d\n", i, int32(m.version))
		for j, s := range m.list {
			p("  module_list[%d].list_annotations[%d] = %s\n", i, j, cstr(s))
		}
		for _, kv := range m.simple {
			p("  module_list[%d].simple_annotations[\"%s\"] = %s\n", i, cstr(kv.key), cstr(kv.value))
		}
		for _, a := range m.objects {
			var v string
			if a.typ == 1 {
				v = cbytes(a.value)
			} else {
				v = sprintf("%X", a.value)
			}
			p("  module_list[%d].crashpad_annotations[\"%s\"] (type = %d) = %s\n", i, cstr(a.name), a.typ, v)
		}
		// Breakpad prints the stream's address mask once per module.
		p("  address_mask = %d\n", addressMask)
	}
	p("\n")
}

// readArray reads a uint32 count at off and count entries of size bytes.
func (d *dump) readArray(off int64, size int64) ([]byte, uint32, bool) {
	if !d.c.seek(off) {
		return nil, 0, false
	}
	count, ok := d.c.u32()
	if !ok {
		return nil, 0, false
	}
	b, ok := d.c.read(int64(count) * size)
	return b, count, ok
}

// readDictionary is Minidump::ReadSimpleStringDictionary: sorted by key,
// the first of duplicate keys kept (a std::map).
func (d *dump) readDictionary(off int64) ([]keyValue, bool) {
	b, count, ok := d.readArray(off, 8)
	if !ok {
		return nil, false
	}
	seen := map[string]bool{}
	var kvs []keyValue
	for i := 0; i < int(count); i++ {
		k, ok := d.readUTF8String(int64(le.Uint32(b[8*i:])))
		if !ok {
			return nil, false
		}
		v, ok := d.readUTF8String(int64(le.Uint32(b[8*i+4:])))
		if !ok || !d.c.charge(entryCost) {
			return nil, false
		}
		if !seen[k] {
			seen[k] = true
			kvs = append(kvs, keyValue{k, v})
		}
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].key < kvs[j].key })
	return kvs, true
}

func (d *dump) readStringList(off int64) ([]string, bool) {
	b, count, ok := d.readArray(off, 4)
	if !ok {
		return nil, false
	}
	list := make([]string, count)
	for i := range list {
		if list[i], ok = d.readUTF8String(int64(le.Uint32(b[4*i:]))); !ok || !d.c.charge(entryCost) {
			return nil, false
		}
	}
	return list, true
}

func (d *dump) readAnnotations(off int64) ([]annotation, bool) {
	b, count, ok := d.readArray(off, 12)
	if !ok {
		return nil, false
	}
	list := make([]annotation, count)
	for i := range list {
		e := b[12*i:]
		name, ok := d.readUTF8String(int64(le.Uint32(e)))
		if !ok || !d.c.charge(entryCost) || !d.c.seek(int64(le.Uint32(e[8:]))) {
			return nil, false
		}
		n, ok := d.c.u32()
		if !ok {
			return nil, false
		}
		v, ok := d.c.read(int64(n))
		if !ok {
			return nil, false
		}
		list[i] = annotation{name, le.Uint16(e[4:]), v}
	}
	return list, true
}

func (d *dump) readCrashpadModules(off int64) ([]crashpadModule, bool) {
	links, count, ok := d.readArray(off, 12)
	if !ok {
		return nil, false
	}
	mods := make([]crashpadModule, count)
	for i := range mods {
		l := links[12*i:]
		if !d.c.seek(int64(le.Uint32(l[8:]))) {
			return nil, false
		}
		info, ok := d.c.read(28)
		if !ok || !d.c.charge(entryCost) {
			return nil, false
		}
		m := crashpadModule{index: le.Uint32(l), version: le.Uint32(info)}
		if le.Uint32(info[4:]) != 0 {
			if m.list, ok = d.readStringList(int64(le.Uint32(info[8:]))); !ok {
				return nil, false
			}
		}
		if le.Uint32(info[12:]) != 0 {
			if m.simple, ok = d.readDictionary(int64(le.Uint32(info[16:]))); !ok {
				return nil, false
			}
		}
		if le.Uint32(info[20:]) != 0 {
			if m.objects, ok = d.readAnnotations(int64(le.Uint32(info[24:]))); !ok {
				return nil, false
			}
		}
		mods[i] = m
	}
	return mods, true
}
