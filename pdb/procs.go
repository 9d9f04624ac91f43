package pdb

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
	}
	var stack []scope
	top := func() (*Proc, *InlineSite) {
		if len(stack) == 0 {
			return nil, nil
		}
		return stack[len(stack)-1].proc, stack[len(stack)-1].inline
	}
	return eachRecord(s, b, 4, func(rec record) error {
		r := newReader(s, rec.data, rec.off+4)
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
			stack = append(stack, scope{proc: p})
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
