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
	f := &b.st.Facts
	if f.HasHandles {
		list := make([]JSONHandle, 0, len(f.Handles))
		for _, h := range f.Handles {
			list = append(list, JSONHandle{Handle: h.Handle, ObjectName: nonEmpty(h.ObjectName), TypeName: nonEmpty(h.TypeName)})
		}
		b.r.Handles = list
	}
	b.buildCrashpadInfo()
	if f.HasProcLimits {
		out := &JSONProcLimits{Limits: []JSONProcLimit{}}
		for _, l := range f.ProcLimits {
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
func (b *jsonBuilder) lastError(threadID uint32) *string {
	code, ok := b.st.Facts.LastErrors[threadID]
	if !ok {
		return nil
	}
	return strPtr(minidump.WindowsErrorString(code))
}
