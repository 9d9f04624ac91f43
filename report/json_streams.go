package report

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// This file fills "handles" (the handle data stream) and "proc_limits"
// (Mozilla's copy of /proc/self/limits) in rust-minidump's shapes.

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
