package crashinfo

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// AnalyzeDump analyzes the crash of a minidump: the exception stream's
// context, the captured memory and the process's memory map (Windows'
// memory info list, else Linux's maps). A dump without an exception or its
// context gives the zero Result.
func AnalyzeDump(f *minidump.File) Result {
	if f == nil {
		return Result{}
	}
	ex, err := f.Exception()
	if err != nil || ex == nil || ex.Context == nil {
		return Result{}
	}
	si, err := f.SystemInfo()
	if err != nil || si == nil {
		return Result{}
	}
	mem, _ := f.Memory() // a partial list still serves
	in := &Input{
		Arch:         si.Arch,
		Platform:     si.Platform,
		Context:      ex.Context,
		Exception:    ex,
		CrashAddress: minidump.CrashAddress(si, ex),
		Regions:      dumpRegions(f),
	}
	if mem != nil {
		in.Memory = mem
	}
	if si.Arch == minidump.ArchARM {
		if cpsr, err := f.ExceptionARMCPSR(); err == nil {
			in.Thumb = cpsr&0x20 != 0
		}
	}
	return Analyze(in)
}

// dumpRegions is the memory map: rust-minidump prefers the memory info
// list when a dump has both.
func dumpRegions(f *minidump.File) []Region {
	var out []Region
	if infos, _ := f.MemoryInfo(); len(infos) > 0 {
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
	maps, _ := f.MapsRegions()
	for _, m := range maps {
		out = append(out, Region{Base: m.Start, Size: m.End - m.Start, Read: m.Read, Write: m.Write, Exec: m.Exec})
	}
	return out
}
