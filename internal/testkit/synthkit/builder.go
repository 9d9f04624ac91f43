package synthkit

import (
	"encoding/binary"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
)

// SetCPU sets the x86 vendor id, family, model and stepping of b's system
// info: the processor level and revision as Breakpad's Linux client writes
// them, and the cpuid version information with extended family and model
// fields as the CPU reports them.
func SetCPU(b *synth.Builder, vendor string, family, model, stepping uint32) {
	b.Sys.VendorID = vendor
	b.Sys.ProcessorLevel = uint16(family)
	b.Sys.ProcessorRevision = uint16(model<<8 | stepping&0xff)
	baseFamily, extFamily := family, uint32(0)
	if family >= 15 {
		baseFamily, extFamily = 15, family-15
	}
	b.Sys.VersionInformation = stepping&0xf | (model&0xf)<<4 | (baseFamily&0xf)<<8 | (model>>4&0xf)<<16 | (extFamily&0xff)<<20
}

// SetVersion fills m's VS_FIXEDFILEINFO with file and product version
// a.b.c.d.
func SetVersion(m *synth.Module, a, b, c, d uint16) {
	m.Version.Signature = synth.FixedFileSignature
	m.Version.StructVersion = 0x10000
	m.Version.FileVersionHi = uint32(a)<<16 | uint32(b)
	m.Version.FileVersionLo = uint32(c)<<16 | uint32(d)
	m.Version.ProductVersionHi = m.Version.FileVersionHi
	m.Version.ProductVersionLo = m.Version.FileVersionLo
}

// BreakpadInfo is a Breakpad info stream with both thread ids valid.
func BreakpadInfo(dumpThread, requestingThread uint32) *synth.BreakpadInfo {
	return &synth.BreakpadInfo{Validity: synth.BreakpadValidDumpThread | synth.BreakpadValidRequestingThread,
		DumpThread: dumpThread, RequestingThread: requestingThread}
}

// SetLinuxEnviron writes the variables NUL-separated, as /proc/pid/environ.
func SetLinuxEnviron(b *synth.Builder, vars ...string) {
	var environ []byte
	for _, v := range vars {
		environ = append(append(environ, v...), 0)
	}
	b.AddStream(synth.StreamLinuxEnviron, environ)
}

// CodeViewPDB20 returns an NB10 CodeView record.
func CodeViewPDB20(signature, age uint32, pdbName string) []byte {
	b := make([]byte, 16, 16+len(pdbName)+1)
	binary.LittleEndian.PutUint32(b, synth.CVSignaturePDB20)
	binary.LittleEndian.PutUint32(b[8:], signature)
	binary.LittleEndian.PutUint32(b[12:], age)
	b = append(b, pdbName...)
	return append(b, 0)
}

// AuxvEntries encodes (type, value) pairs as an auxv vector of the given
// word size, ending with AT_NULL.
func AuxvEntries(wordSize int, pairs ...[2]uint64) []byte {
	var out []byte
	put := func(v uint64) {
		if wordSize == 4 {
			out = binary.LittleEndian.AppendUint32(out, uint32(v))
		} else {
			out = binary.LittleEndian.AppendUint64(out, v)
		}
	}
	for _, p := range pairs {
		put(p[0])
		put(p[1])
	}
	put(0)
	put(0)
	return out
}
