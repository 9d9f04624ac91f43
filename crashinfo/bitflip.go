package crashinfo

import (
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Bit-flip heuristics, after rust-minidump's: an address that faulted but
// is one bit away from mapped memory the faulting operation may use could
// be a hardware bit flip. Only amd64 (and other 64-bit CPUs but arm64,
// where near-null register+offset crashes give false positives) is
// checked: 64-bit address spaces are sparse enough for the test to mean
// something.

const (
	nearbyRegisterDistance = 1 << 12
	lowAddressCutoff       = nearbyRegisterDistance * 2
)

// memOp is the memory operation the OS says faulted.
type memOp int

const (
	opUndetermined memOp = iota
	opRead
	opWrite
	opExec
)

func crashMemOp(in *Input) memOp {
	ex := in.Exception
	switch in.Platform {
	case minidump.PlatformWin32NT, minidump.PlatformWin32Windows, minidump.PlatformWin32CE, minidump.PlatformWin32s:
	default:
		return opUndetermined
	}
	if ex == nil || ex.Code != winAccessViolation || len(ex.Parameters) == 0 {
		return opUndetermined
	}
	switch ex.Parameters[0] {
	case 0:
		return opRead
	case 1:
		return opWrite
	case 8:
		return opExec
	}
	return opUndetermined
}

func (o memOp) possiblyAllowed(r *Region) bool {
	switch o {
	case opRead:
		return r.Read
	case opWrite:
		return r.Write
	case opExec:
		return r.Exec
	}
	return true
}

// regionAt finds the region holding addr (regions sorted by base).
func regionAt(regions []Region, addr uint64) *Region {
	i := sort.Search(len(regions), func(i int) bool { return regions[i].Base > addr })
	if i == 0 {
		return nil
	}
	r := &regions[i-1]
	if r.Size == 0 || addr-r.Base >= r.Size {
		return nil
	}
	return r
}

// sortedRegions drops empty regions and sorts by base; of overlapping
// regions the first kept wins.
func sortedRegions(in []Region) []Region {
	var out []Region
	for _, r := range in {
		if r.Size > 0 && r.Base+r.Size-1 >= r.Base {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Base < out[j].Base })
	kept := out[:0]
	for _, r := range out {
		if len(kept) > 0 {
			last := kept[len(kept)-1]
			if r.Base <= last.Base+last.Size-1 {
				continue
			}
		}
		kept = append(kept, r)
	}
	return kept
}

func bitFlips(in *Input, r *Result) []BitFlip {
	if in.Arch != minidump.ArchAMD64 {
		return nil
	}
	lo, hi := uint(0), uint(48)
	addr := in.CrashAddress
	nonCanon := false
	if r.Adjusted != nil {
		if r.Adjusted.Kind == NullPointer {
			return nil
		}
		addr, lo, hi, nonCanon = r.Adjusted.Value, 48, 64, true
	}
	regions := sortedRegions(in.Regions)
	op := crashMemOp(in)
	size := 0
	for _, a := range r.Accesses {
		if in.CrashAddress >= a.Address && in.CrashAddress-a.Address < uint64(a.Size) {
			// The faulting access's base: the crash address derives from it.
			addr, size = a.Address, a.Size
			break
		}
	}
	f := flipper{regions: regions, op: op, size: size, lo: lo, hi: hi, nonCanon: nonCanon, ctx: in.Context}
	out := f.try(addr, "")
	for _, name := range r.Registers {
		if v, ok := in.Context.Get(name); ok {
			out = append(out, f.try(v, name)...)
		}
	}
	return out
}

type flipper struct {
	regions  []Region
	op       memOp
	size     int
	lo, hi   uint
	nonCanon bool
	ctx      *minidump.Context
}

func (f *flipper) try(addr uint64, reg string) []BitFlip {
	if m := regionAt(f.regions, addr); m != nil && f.op.possiblyAllowed(m) {
		return nil
	}
	if d, ok := f.distanceToMapping(addr); ok && f.size > 0 && d < uint64(f.size) {
		return nil // an off-by-one next to a mapping, not a flip
	}
	var out []BitFlip
	for i := f.lo; i < f.hi; i++ {
		cand := addr ^ (1 << i)
		if cand == 0 {
			out = append(out, f.candidate(cand, addr, reg))
		}
		if m := regionAt(f.regions, cand); m != nil && f.op.possiblyAllowed(m) {
			out = append(out, f.candidate(cand, addr, reg))
		}
	}
	return out
}

func (f *flipper) distanceToMapping(addr uint64) (uint64, bool) {
	best, found := uint64(0), false
	for i := range f.regions {
		r := &f.regions[i]
		if !f.op.possiblyAllowed(r) {
			continue
		}
		end := r.Base + r.Size - 1 // inclusive
		var d uint64
		switch {
		case addr < r.Base:
			d = r.Base - addr
		case addr > end:
			d = addr - end
		}
		if !found || d < best {
			best, found = d, true
		}
	}
	return best, found
}

// poisonBytes are allocator and Firefox poison patterns, by byte value: a
// register full of one suggests a use-after-free rather than a flip.
var poisonBytes = [256]bool{0x2b: true, 0x2d: true, 0x2f: true, 0x49: true, 0x4b: true, 0x4d: true,
	0x4f: true, 0x6b: true, 0x8b: true, 0x9b: true, 0x9f: true, 0xa5: true, 0xbb: true, 0xcc: true,
	0xcd: true, 0xce: true, 0xdb: true, 0xe5: true}

func (f *flipper) candidate(addr, original uint64, reg string) BitFlip {
	b := BitFlip{Address: addr, SourceRegister: reg, WasNonCanonical: f.nonCanon}
	b.IsNull = addr == 0
	b.WasLow = b.IsNull && original <= lowAddressCutoff
	if f.ctx != nil {
		word := f.ctx.WordSize()
		for i := 0; i < f.ctx.NumRegs(); i++ {
			v, ok := f.ctx.Index(i)
			if !ok {
				continue
			}
			if addr > lowAddressCutoff && absDiff(addr, v) <= nearbyRegisterDistance {
				b.NearbyRegisters++
			}
			if repeatedByte(v, word) && poisonBytes[byte(v)] {
				b.PoisonRegisters = true
			}
		}
	}
	b.Confidence = b.confidence()
	return b
}

func absDiff(a, b uint64) uint64 {
	if a > b {
		return a - b
	}
	return b - a
}

func repeatedByte(v uint64, word int) bool {
	x := v & 0xff
	var rep uint64
	for i := 0; i < word; i++ {
		rep = rep<<8 | x
	}
	return v == rep
}

// confidence combines independent evidence as rust-minidump does:
// 1 - Π(1 - p), then halves it when poison patterns are around.
func (b *BitFlip) confidence() float32 {
	const high, medium, low = float32(0.90), float32(0.50), float32(0.25)
	values := []float32{low}
	if b.WasNonCanonical {
		values = append(values, high)
	}
	if b.IsNull {
		v := medium
		if b.WasLow {
			v *= medium
		}
		values = append(values, v)
	}
	if b.NearbyRegisters > 0 {
		nearby := []float32{medium, medium + 0.05, medium + 0.1, medium + 0.15}
		values = append(values, nearby[min(b.NearbyRegisters, len(nearby))-1])
	}
	p := float32(1)
	for _, v := range values {
		p *= 1 - v
	}
	c := 1 - p
	if b.PoisonRegisters {
		c *= medium
	}
	return c
}
