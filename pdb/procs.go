package pdb

// cvRegEBP is CodeView's CV_REG_EBP.
const cvRegEBP = 22

// maxScopeDepth bounds the nesting of scopes (procedures, blocks, inline
// sites) in a module's symbols.
const maxScopeDepth = 1 << 10

// readSymbols reads the procedures and their inline sites. Scopes nest by
// their order (each opening record is closed by an S_END, S_PROC_ID_END or
// S_INLINESITE_END), so a stack of open scopes places each inline site.
func (mi *ModuleInfo) readSymbols(s int, b []byte) error {
	type scope struct {
		proc   *Proc
		inline *InlineSite
		own    bool // the procedure's own scope, not a block or inline site in it
	}
	var stack []scope
	var local *FrameVar // the S_LOCAL whose S_DEFRANGE records follow
	localRange := -1
	top := func() (*Proc, *InlineSite) {
		if len(stack) == 0 {
			return nil, nil
		}
		return stack[len(stack)-1].proc, stack[len(stack)-1].inline
	}
	return eachRecord(s, b, 4, func(rec record) error {
		r := newReader(s, rec.data, rec.off+4)
		if rec.kind != sLocal && (rec.kind < sDefRangeFirst || rec.kind > sDefRangeLast) {
			local = nil
		}
		switch rec.kind {
		case sGProc32, sLProc32, sGProc32ID, sLProc32ID, sLProc32DPC, sLProc32DPCID:
			r.bytes(12, "procedure scope")
			p := &Proc{Len: r.u32()}
			r.u32()
			r.u32()
			p.Type, p.Offset, p.Section = r.u32(), r.u32(), r.u16()
			r.u8()
			p.Name = r.cstring()
			p.Global = rec.kind == sGProc32 || rec.kind == sGProc32ID
			p.TypeIsID = rec.kind == sGProc32ID || rec.kind == sLProc32ID || rec.kind == sLProc32DPCID
			if r.err != nil {
				return r.err
			}
			mi.Procs = append(mi.Procs, p)
			stack = append(stack, scope{proc: p, own: true})
		case sThunk32:
			r.bytes(12, "thunk scope")
			p := &Proc{Thunk: true, Offset: r.u32(), Section: r.u16()}
			p.Len = uint32(r.u16())
			r.u8()
			p.Name = r.cstring()
			if r.err != nil {
				return r.err
			}
			mi.Procs = append(mi.Procs, p)
			stack = append(stack, scope{proc: p})
		case sInlineSite, sInlineSite2:
			r.bytes(8, "inline site scope")
			site := &InlineSite{Inlinee: r.u32()}
			if rec.kind == sInlineSite2 {
				r.u32() // invocations
			}
			if r.err != nil {
				return r.err
			}
			proc, parent := top()
			if proc == nil {
				return errAt(s, rec.off, "inline site outside a procedure")
			}
			if err := mi.inlineRanges(site, proc, r); err != nil {
				return err
			}
			if parent != nil {
				parent.Children = append(parent.Children, site)
			} else {
				proc.Inlines = append(proc.Inlines, site)
			}
			stack = append(stack, scope{proc: proc, inline: site})
		case sRegRel32, sBPRel32:
			proc, parent := top()
			if proc == nil || parent != nil || len(stack) == 0 || stack[len(stack)-1].proc != proc || !stack[len(stack)-1].own {
				return nil
			}
			v := FrameVar{Register: cvRegEBP, Offset: int32(r.u32()), Type: r.u32(), BPRel: rec.kind == sBPRel32}
			if rec.kind == sRegRel32 {
				v.Register = r.u16()
			}
			v.Name = r.cstring()
			if r.err != nil {
				return r.err
			}
			proc.FrameVars = append(proc.FrameVars, v)
		case sLocal:
			local = nil
			proc, _ := top()
			if proc == nil || !stack[len(stack)-1].own {
				return nil
			}
			v := FrameVar{Type: r.u32(), Local: true}
			v.Param = r.u16()&1 != 0
			v.Name = r.cstring()
			if r.err != nil {
				return r.err
			}
			proc.FrameVars = append(proc.FrameVars, v)
			local, localRange = &proc.FrameVars[len(proc.FrameVars)-1], -1
		case sDefRangeRegisterRel, sDefRangeFramePointerRel, sDefRangeFramePointerRelFull, sDefRangeRegister:
			if local == nil {
				return nil
			}
			placeLocal(local, &localRange, rec.kind, r)
			return r.err
		case sBlock32, sWith32, sSepCode:
			proc, parent := top()
			stack = append(stack, scope{proc: proc, inline: parent})
		case sEnd, sProcIDEnd, sInlineSiteEnd:
			if len(stack) == 0 {
				return errAt(s, rec.off, "scope end without a scope")
			}
			stack = stack[:len(stack)-1]
		}
		if len(stack) > maxScopeDepth {
			return errAt(s, rec.off, "scopes nested more than %d deep", maxScopeDepth)
		}
		return nil
	})
}

// S_LOCAL and the S_DEFRANGE records that place it.
const (
	sLocal                       = 0x113e
	sDefRangeFirst               = 0x113f
	sDefRangeRegister            = 0x1141
	sDefRangeFramePointerRel     = 0x1142
	sDefRangeFramePointerRelFull = 0x1144
	sDefRangeRegisterRel         = 0x1145
	sDefRangeLast                = 0x1145
)

// placeLocal gives a local the place of its longest range: where it lives
// for most of the procedure (a full-scope range is longest of all).
func placeLocal(v *FrameVar, longest *int, kind uint16, r *reader) {
	var reg uint16
	var off int32
	switch kind {
	case sDefRangeRegisterRel:
		reg = r.u16()
		r.u16()
		off = int32(r.u32())
	case sDefRangeFramePointerRel, sDefRangeFramePointerRelFull:
		reg, off = RegFramePointer, int32(r.u32())
	case sDefRangeRegister:
		r.u16()
		r.u16()
	}
	size := 1 << 20 // full scope
	if kind != sDefRangeFramePointerRelFull {
		r.u32()
		r.u16()
		size = int(r.u16())
	}
	if r.err != nil || size <= *longest {
		return
	}
	*longest = size
	v.Register, v.Offset = reg, off
}
