package minidump

import (
	"fmt"
	"strings"
)

// Platform is MINIDUMP_SYSTEM_INFO.PlatformId, with Breakpad's extensions.
type Platform uint32

// Platform values.
const (
	PlatformWin32s       Platform = 0
	PlatformWin32Windows Platform = 1
	PlatformWin32NT      Platform = 2
	PlatformWin32CE      Platform = 3
	PlatformUnix         Platform = 0x8000
	PlatformMacOSX       Platform = 0x8101
	PlatformIOS          Platform = 0x8102
	PlatformLinux        Platform = 0x8201
	PlatformSolaris      Platform = 0x8202
	PlatformAndroid      Platform = 0x8203
	PlatformPS3          Platform = 0x8204
	PlatformNaCl         Platform = 0x8205
	PlatformFuchsia      Platform = 0x8206
)

// String returns the name Breakpad prints on its "Operating system:" line,
// or the id as 0x%08x when unknown.
func (p Platform) String() string {
	switch p {
	case PlatformWin32NT:
		return "Windows NT"
	case PlatformWin32Windows:
		return "Windows"
	case PlatformMacOSX:
		return "Mac OS X"
	case PlatformIOS:
		return "iOS"
	case PlatformLinux:
		return "Linux"
	case PlatformSolaris:
		return "Solaris"
	case PlatformAndroid:
		return "Android"
	case PlatformPS3:
		return "PS3"
	case PlatformNaCl:
		return "NaCl"
	case PlatformFuchsia:
		return "Fuchsia"
	}
	return fmt.Sprintf("0x%08x", uint32(p))
}

// ShortName is Breakpad's short OS name ("windows", "linux", "mac", ...), as in
// MinidumpSystemInfo::GetOS; "" when unknown.
func (p Platform) ShortName() string {
	switch p {
	case PlatformWin32NT, PlatformWin32Windows:
		return "windows"
	case PlatformMacOSX:
		return "mac"
	case PlatformIOS:
		return "ios"
	case PlatformLinux:
		return "linux"
	case PlatformSolaris:
		return "solaris"
	case PlatformAndroid:
		return "android"
	case PlatformPS3:
		return "ps3"
	case PlatformNaCl:
		return "nacl"
	case PlatformFuchsia:
		return "fuchsia"
	}
	return ""
}

// SystemInfo is MINIDUMP_SYSTEM_INFO.
type SystemInfo struct {
	Arch              Arch
	ProcessorLevel    uint16
	ProcessorRevision uint16
	NumProcessors     uint8
	ProductType       uint8
	MajorVersion      uint32
	MinorVersion      uint32
	BuildNumber       uint32
	Platform          Platform
	CSDVersion        string // service pack, or on Linux the uname string
	HasCSDVersion     bool   // false when the CSD string could not be read
	SuiteMask         uint16

	// CPU information: the union is kept raw; VendorID and the x86 fields
	// apply to x86/amd64, ARMCPUID and ARMELFHwcaps to arm.
	CPURaw              [24]byte
	VendorID            string // x86: 12-character CPUID vendor, up to its first NUL
	VersionInformation  uint32
	FeatureInformation  uint32
	AMDExtendedFeatures uint32
	ARMCPUID            uint32
	ARMELFHwcaps        uint32
}

const systemInfoSize = 56

// SystemInfo parses MINIDUMP_SYSTEM_INFO. The result is shared: do not modify it.
func (f *File) SystemInfo() (*SystemInfo, error) {
	f.sysOnce.Do(func() { f.sysInfo, f.sysErr = f.parseSystemInfo() })
	return f.sysInfo, f.sysErr
}

func (f *File) parseSystemInfo() (*SystemInfo, error) {
	b, s, err := f.stream(StreamSystemInfo)
	if err != nil {
		return nil, err
	}
	if len(b) < systemInfoSize {
		return nil, &FormatError{s.Off, s.Name, fmt.Sprintf("size %d, want at least %d", len(b), systemInfoSize)}
	}
	si := &SystemInfo{
		Arch:              Arch(le.Uint16(b[0:])),
		ProcessorLevel:    le.Uint16(b[2:]),
		ProcessorRevision: le.Uint16(b[4:]),
		NumProcessors:     b[6],
		ProductType:       b[7],
		MajorVersion:      le.Uint32(b[8:]),
		MinorVersion:      le.Uint32(b[12:]),
		BuildNumber:       le.Uint32(b[16:]),
		Platform:          Platform(le.Uint32(b[20:])),
		SuiteMask:         le.Uint16(b[28:]),
	}
	copy(si.CPURaw[:], b[32:56])
	cpu := b[32:56]
	si.VendorID = cString(cpu[0:12])
	si.VersionInformation = le.Uint32(cpu[12:])
	si.FeatureInformation = le.Uint32(cpu[16:])
	si.AMDExtendedFeatures = le.Uint32(cpu[20:])
	si.ARMCPUID = le.Uint32(cpu[0:])
	si.ARMELFHwcaps = le.Uint32(cpu[4:])
	csdRVA := le.Uint32(b[24:])
	if csdRVA != 0 {
		csd, err := f.readString(csdRVA, s.Name)
		if err == nil {
			si.CSDVersion, si.HasCSDVersion = csd, true
		}
	}
	return si, nil
}

// OS is the operating system name Breakpad prints ("Windows NT", "Linux", ...).
func (si *SystemInfo) OS() string { return si.Platform.String() }

// OSVersion is Breakpad's version line: "major.minor.build" followed by the
// CSD string when present ("5.1.2600 Service Pack 2", "0.0.0 Linux 3.3.8 ...").
func (si *SystemInfo) OSVersion() string {
	v := fmt.Sprintf("%d.%d.%d", si.MajorVersion, si.MinorVersion, si.BuildNumber)
	if si.HasCSDVersion {
		v += " " + si.CSDVersion
	}
	return v
}

// CPU is the CPU name Breakpad prints ("x86", "amd64", "arm", "arm64", ...;
// unknown architectures as "0x%04x").
func (si *SystemInfo) CPU() string {
	s := si.Arch.String()
	if s == "unknown" {
		return fmt.Sprintf("0x%04x", uint16(si.Arch))
	}
	return s
}

// CPUCount is the processor count.
func (si *SystemInfo) CPUCount() int { return int(si.NumProcessors) }

// CPUInfo is Breakpad's optional CPU description line, e.g.
// "GenuineIntel family 6 model 13 stepping 8", "family 6 model 45 stepping 7"
// (amd64 carries no vendor in Breakpad's output) or "ARMv7 ARM Cortex-A9 features: ...".
func (si *SystemInfo) CPUInfo() string {
	switch si.Arch {
	case ArchX86, ArchAMD64:
		s := ""
		// Breakpad reads the vendor only for x86 (and x86-on-Win64, which never reaches here).
		if si.Arch == ArchX86 {
			s = si.VendorID + " "
		}
		return s + fmt.Sprintf("family %d model %d stepping %d",
			si.ProcessorLevel, si.ProcessorRevision>>8, si.ProcessorRevision&0xff)
	case ArchARM:
		return armCPUInfo(si)
	}
	return ""
}

func armCPUInfo(si *SystemInfo) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "ARMv%d", int16(si.ProcessorLevel))
	if cpuid := si.ARMCPUID; cpuid != 0 {
		vendorID := cpuid >> 24 & 0xff
		vendors := map[uint32]string{0x41: "ARM", 0x51: "Qualcomm", 0x56: "Marvell", 0x69: "Intel/Marvell"}
		if v, ok := vendors[vendorID]; ok {
			sb.WriteString(" " + v)
		} else {
			fmt.Fprintf(&sb, " vendor(0x%x)", vendorID)
		}
		partID := cpuid & 0xff00fff0
		parts := map[uint32]string{
			0x4100c050: "Cortex-A5", 0x4100c080: "Cortex-A8", 0x4100c090: "Cortex-A9",
			0x4100c0f0: "Cortex-A15", 0x4100c140: "Cortex-R4", 0x4100c150: "Cortex-R5",
			0x4100b360: "ARM1136", 0x4100b560: "ARM1156", 0x4100b760: "ARM1176",
			0x4100b020: "ARM11-MPCore", 0x41009260: "ARM926", 0x41009460: "ARM946",
			0x41009660: "ARM966", 0x510006f0: "Krait", 0x510000f0: "Scorpion",
		}
		if p, ok := parts[partID]; ok {
			sb.WriteString(" " + p)
		} else {
			fmt.Fprintf(&sb, " part(0x%x)", partID)
		}
	}
	if hw := si.ARMELFHwcaps; hw != 0 {
		names := []string{"swp", "half", "thumb", "26bit", "fastmult", "fpa", "vfpv2", "edsp", "java",
			"iwmmxt", "crunch", "thumbee", "neon", "vfpv3", "vfpv3d16", "tls", "vfpv4", "idiva", "idivt"}
		sb.WriteString(" features: ")
		comma := ""
		for i, n := range names {
			if hw&(1<<uint(i)) != 0 {
				sb.WriteString(comma + n)
				comma = ","
			}
		}
	}
	return sb.String()
}

// MiscInfo is MINIDUMP_MISC_INFO and its later versions; fields beyond the
// stream's size are zero. Flags1 says which groups are valid.
type MiscInfo struct {
	Size              uint32
	Flags1            uint32
	ProcessID         uint32
	ProcessCreateTime uint32 // seconds since the Unix epoch
	ProcessUserTime   uint32
	ProcessKernelTime uint32
	// MINIDUMP_MISC_INFO_2
	ProcessorMaxMhz, ProcessorCurrentMhz, ProcessorMhzLimit uint32
	ProcessorMaxIdleState, ProcessorCurrentIdleState        uint32
	// MINIDUMP_MISC_INFO_3
	ProcessIntegrityLevel, ProcessExecuteFlags, ProtectedProcess uint32
	TimeZoneID                                                   uint32
	// MINIDUMP_MISC_INFO_4
	BuildString, DbgBldStr string
}

// MiscInfo flag bits (MINIDUMP_MISC_INFO.Flags1).
const (
	MiscInfoProcessID    = 0x1
	MiscInfoProcessTimes = 0x2
	MiscInfoPowerInfo    = 0x4
	MiscInfoIntegrity    = 0x10
	MiscInfoExecuteFlags = 0x20
	MiscInfoTimezone     = 0x40
	MiscInfoProtected    = 0x80
	MiscInfoBuildString  = 0x100
)

// MiscInfo parses MINIDUMP_MISC_INFO (versions 1 to 5; the size selects the version).
func (f *File) MiscInfo() (*MiscInfo, error) {
	b, s, err := f.stream(StreamMiscInfo)
	if err != nil {
		return nil, err
	}
	// Breakpad accepts exactly the sizes of versions 1 to 5, or anything
	// larger (reading version 5's part of it).
	switch n := len(b); {
	case n == 24, n == 44, n == 232, n == 832, n >= 1364:
	default:
		return nil, &FormatError{s.Off, s.Name, fmt.Sprintf("size %d is none of MINIDUMP_MISC_INFO's (24, 44, 232, 832, 1364)", n)}
	}
	u := func(off int) uint32 {
		if off+4 <= len(b) {
			return le.Uint32(b[off:])
		}
		return 0
	}
	m := &MiscInfo{
		Size: u(0), Flags1: u(4), ProcessID: u(8), ProcessCreateTime: u(12),
		ProcessUserTime: u(16), ProcessKernelTime: u(20),
		ProcessorMaxMhz: u(24), ProcessorCurrentMhz: u(28), ProcessorMhzLimit: u(32),
		ProcessorMaxIdleState: u(36), ProcessorCurrentIdleState: u(40),
		ProcessIntegrityLevel: u(44), ProcessExecuteFlags: u(48), ProtectedProcess: u(52),
		TimeZoneID: u(56),
	}
	// MINIDUMP_MISC_INFO_3 holds a 172-byte TIME_ZONE_INFORMATION after TimeZoneId;
	// MINIDUMP_MISC_INFO_4 then has BuildString[260] and DbgBldStr[40] in UTF-16.
	const buildOff = 60 + 172
	if len(b) >= buildOff+2*260+2*40 {
		m.BuildString = cString16(b[buildOff : buildOff+520])
		m.DbgBldStr = cString16(b[buildOff+520 : buildOff+600])
	}
	return m, nil
}

// cString16 decodes UTF-16LE up to the first NUL code unit.
func cString16(b []byte) string {
	for i := 0; i+1 < len(b); i += 2 {
		if b[i] == 0 && b[i+1] == 0 {
			return decodeUTF16(b[:i])
		}
	}
	return decodeUTF16(b)
}

// ProcessCreateTime returns the process creation time when MiscInfo records
// it (Breakpad's GetProcessCreateTime), else ok=false.
func (f *File) ProcessCreateTime() (t uint32, ok bool) {
	m, err := f.MiscInfo()
	if err != nil || m.Flags1&MiscInfoProcessTimes == 0 {
		return 0, false
	}
	return m.ProcessCreateTime, true
}

// ProcessUptime is the header time stamp minus the process creation time, in
// seconds, under Breakpad's conditions (both non-zero and not going backwards);
// ok=false means Breakpad prints "Process uptime: not available".
func (f *File) ProcessUptime() (seconds uint32, ok bool) {
	ct, _ := f.ProcessCreateTime()
	ts := f.Header.TimeDateStamp
	if ts == 0 || ct == 0 || ts < ct {
		return 0, false
	}
	return ts - ct, true
}

// BreakpadInfo is MDRawBreakpadInfo.
type BreakpadInfo struct {
	Validity              uint32
	DumpThreadID          uint32
	RequestingThreadID    uint32
	HasDumpThreadID       bool
	HasRequestingThreadID bool
}

// BreakpadInfo parses MDRawBreakpadInfo.
func (f *File) BreakpadInfo() (*BreakpadInfo, error) {
	b, s, err := f.stream(StreamBreakpadInfo)
	if err != nil {
		return nil, err
	}
	if len(b) < 12 {
		return nil, &FormatError{s.Off, s.Name, fmt.Sprintf("size %d, want 12", len(b))}
	}
	v := le.Uint32(b)
	return &BreakpadInfo{
		Validity:              v,
		DumpThreadID:          le.Uint32(b[4:]),
		RequestingThreadID:    le.Uint32(b[8:]),
		HasDumpThreadID:       v&1 != 0,
		HasRequestingThreadID: v&2 != 0,
	}, nil
}

// AssertionInfo is MDRawAssertionInfo.
type AssertionInfo struct {
	Expression, Function, File string
	Line                       uint32
	Type                       uint32 // 1 invalid parameter, 2 pure virtual call
}

// AssertionInfo parses MDRawAssertionInfo (three 128-wchar strings, line, type).
func (f *File) AssertionInfo() (*AssertionInfo, error) {
	b, s, err := f.stream(StreamAssertionInfo)
	if err != nil {
		return nil, err
	}
	const size = 3*256 + 8
	if len(b) < size {
		return nil, &FormatError{s.Off, s.Name, fmt.Sprintf("size %d, want %d", len(b), size)}
	}
	return &AssertionInfo{
		Expression: cString16(b[0:256]),
		Function:   cString16(b[256:512]),
		File:       cString16(b[512:768]),
		Line:       le.Uint32(b[768:]),
		Type:       le.Uint32(b[772:]),
	}, nil
}

// String is Breakpad's assertion text (MinidumpProcessor::GetAssertion).
func (a *AssertionInfo) String() string {
	var s string
	switch a.Type {
	case 1:
		s = "Invalid parameter passed to library function"
	case 2:
		s = "Pure virtual function called"
	default:
		s = fmt.Sprintf("Unknown assertion type 0x%08x", a.Type)
	}
	if a.Expression != "" {
		s += " " + a.Expression
	}
	if a.Function != "" {
		s += " in function " + a.Function
	}
	if a.File != "" {
		s += ", in file " + a.File
	}
	if a.Line != 0 {
		s += fmt.Sprintf(" at line %d", a.Line)
	}
	return s
}

// Assertion returns Breakpad's assertion string, or "" when the dump has none.
func (f *File) Assertion() string {
	a, err := f.AssertionInfo()
	if err != nil {
		return ""
	}
	return a.String()
}
