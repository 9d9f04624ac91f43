package report

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// This file fills "handles" (the handle data stream), "proc_limits"
// (Mozilla's copy of /proc/self/limits) and the threads' "last_error_value"
// (Windows' TEB) in rust-minidump's shapes.

// JSONHandle is one entry of "handles".
type JSONHandle struct {
	Handle     uint64  `json:"handle"`
	ObjectName *string `json:"object_name"`
	TypeName   *string `json:"type_name"`
}

// JSONProcLimits is "proc_limits".
type JSONProcLimits struct {
	Limits []JSONProcLimit `json:"limits"`
}

// JSONProcLimit is one resource's bounds; Soft and Hard are a number or
// "unlimited".
type JSONProcLimit struct {
	Hard any    `json:"hard"`
	Name string `json:"name"`
	Soft any    `json:"soft"`
	Unit string `json:"unit"`
}

func (b *jsonBuilder) buildStreamFacts() {
	hs, err := b.f.HandleData()
	if isBroken(err) {
		b.note(err)
	}
	if err == nil || len(hs) > 0 { // a partly readable stream lists what it can
		list := make([]JSONHandle, 0, len(hs))
		for _, h := range hs {
			list = append(list, JSONHandle{Handle: h.Handle, ObjectName: nonEmpty(h.ObjectName), TypeName: nonEmpty(h.TypeName)})
		}
		b.r.Handles = list
	}
	b.buildCrashpadInfo()
	if ls, err := b.f.ProcLimits(); err == nil {
		out := &JSONProcLimits{Limits: []JSONProcLimit{}}
		for _, l := range ls {
			out.Limits = append(out.Limits, JSONProcLimit{Hard: jsonLimit(l.Hard), Name: l.Name, Soft: jsonLimit(l.Soft), Unit: l.Unit})
		}
		b.r.ProcLimits = out
	}
}

func jsonLimit(l minidump.Limit) any {
	if l.Unlimited {
		return "unlimited"
	}
	return l.Value
}

// lastError is a Windows thread's last error value from its TEB, named as
// rust-minidump names it; nil elsewhere or when the TEB is not captured.
// rust-minidump reads the same TEB offset on every OS; only Windows has a
// TEB there.
func (b *jsonBuilder) lastError(t *minidump.Thread, mem *minidump.MemoryList) *string {
	if b.si == nil || b.si.Platform != minidump.PlatformWin32NT {
		return nil
	}
	code, ok := minidump.ThreadLastError(t, mem, b.hexWidth/2)
	if !ok {
		return nil
	}
	return strPtr(minidump.WindowsErrorString(code))
}
