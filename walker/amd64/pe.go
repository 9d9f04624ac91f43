package amd64

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// endOfStack reports whether a Windows module's own unwind tables
// (pesupplier: .pdata, evaluated as RtlVirtualUnwind does) unwind last to
// a return address of 0. That is the end of a Windows thread's stack: the
// start routine (ntdll's RtlUserThreadStart) returns to 0, and Windows'
// stack walkers stop there, where a scan would find stale return
// addresses beyond it.
func endOfStack(w *walker.Walker, last *walker.Frame, rules symfile.CFIRules, src walker.CFISource) bool {
	if src != walker.CFIUnwindTables || w.Env.OS != "windows" {
		return false
	}
	ctx, ok := w.CallerByCFI(rules, last, cfiRegs)
	if !ok {
		return false
	}
	ip, ok := ctx.IP()
	return ok && ip == 0
}
