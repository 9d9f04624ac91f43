package crashinfo

// guardPageMaxSize bounds a guard page mapping (rust-minidump: 2 << 14).
const guardPageMaxSize = 2 << 14

func accessible(r *Region) bool { return r.Read || r.Write || r.Exec }

// markGuardPages flags the accesses that land in a likely guard page: a
// mapping with no access rights, smaller than 32 KiB, right after or right
// before an accessible mapping (regions sorted by base, as sortedRegions
// gives them).
func markGuardPages(accesses []Access, regions []Region) {
	for i := range accesses {
		m := regionAt(regions, accesses[i].Address)
		if m == nil || accessible(m) || m.Size-1 >= guardPageMaxSize {
			continue
		}
		for j := range regions {
			o := &regions[j]
			if !accessible(o) {
				continue
			}
			if o.Base+o.Size == m.Base || m.Base+m.Size == o.Base {
				accesses[i].LikelyGuardPage = true
				break
			}
		}
	}
}
