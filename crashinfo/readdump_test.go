package crashinfo

import "github.com/minidump-stackwalk/minidump-stackwalk/minidump"

// analyzeFile reads the streams AnalyzeDump needs from f, as the
// processor's read phase does, and analyzes the crash.
func analyzeFile(f *minidump.File) Result {
	d := &DumpStreams{}
	d.System, _ = f.SystemInfo()
	d.Exception, _ = f.Exception()
	d.Memory, _ = f.Memory() // a partial list still serves
	d.MemoryInfo, _ = f.MemoryInfo()
	d.Maps, _ = f.MapsRegions()
	cpsr, err := f.ExceptionARMCPSR()
	d.CPSR, d.HasCPSR = cpsr, err == nil
	return AnalyzeDump(d)
}
