package crashinfo

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// DumpStreams are the streams of a minidump the analysis reads, as the
// processor's read phase read them (the dump is read once).
type DumpStreams struct {
	System    *minidump.SystemInfo // nil: unreadable (no analysis)
	Exception *minidump.Exception  // nil, or without a context: no crash to analyze
	Memory    *minidump.MemoryList // the captured memory; nil: none
	// MemoryInfo and Maps are the process's memory map: Windows' memory
	// info list, preferred when a dump has both (as rust-minidump does),
	// and Linux's maps.
	MemoryInfo []minidump.MemoryInfo
	Maps       []minidump.MapsRegion
	// CPSR is the arm exception context's CPSR (minidump.File's
	// ExceptionARMCPSR), valid when HasCPSR.
	CPSR    uint32
	HasCPSR bool
}

// AnalyzeDump analyzes the crash of a minidump from its streams: the
// exception stream's context, the captured memory and the process's memory
// map. A dump without system info, an exception or its context gives the
// zero Result.
func AnalyzeDump(d *DumpStreams) Result {
	ex, si := d.Exception, d.System
	if ex == nil || ex.Context == nil || si == nil {
		return Result{}
	}
	in := &Input{
		Arch:         si.Arch,
		Platform:     si.Platform,
		Context:      ex.Context,
		Exception:    ex,
		CrashAddress: minidump.CrashAddress(si, ex),
		Regions:      dumpRegions(d.MemoryInfo, d.Maps),
	}
	if d.Memory != nil {
		in.Memory = d.Memory
	}
	if si.Arch == minidump.ArchARM && d.HasCPSR {
		in.Thumb = d.CPSR&0x20 != 0
	}
	return Analyze(in)
}

// dumpRegions is the memory map: rust-minidump prefers the memory info
// list when a dump has both.
func dumpRegions(infos []minidump.MemoryInfo, maps []minidump.MapsRegion) []Region {
	var out []Region
	if len(infos) > 0 {
		for _, mi := range infos {
			p := mi.Protect
			out = append(out, Region{Base: mi.BaseAddress, Size: mi.RegionSize,
				Read:  p&(minidump.PageReadOnly|minidump.PageReadWrite|minidump.PageExecuteRead|minidump.PageExecuteReadWrite) != 0,
				Write: p&(minidump.PageReadWrite|minidump.PageWriteCopy|minidump.PageExecuteReadWrite|minidump.PageExecuteWriteCopy) != 0,
				Exec:  p&(minidump.PageExecute|minidump.PageExecuteRead|minidump.PageExecuteReadWrite|minidump.PageExecuteWriteCopy) != 0,
			})
		}
		return out
	}
	for _, m := range maps {
		out = append(out, Region{Base: m.Start, Size: m.End - m.Start, Read: m.Read, Write: m.Write, Exec: m.Exec})
	}
	return out
}
