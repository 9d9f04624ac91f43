package retaddr

func (k CallKind) String() string {
	switch k {
	case NotCall:
		return "not a call"
	case CallDirect:
		return "direct call"
	case CallIndirect:
		return "indirect call"
	}
	return "unknown"
}

// decodeCallSite classifies the bytes b, which end at the return address ra.
func decodeCallSite(i isa, b []byte, ra uint64) CallSite {
	return i.decode(b, ra)
}
