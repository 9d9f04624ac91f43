package retaddr

import "testing"

// TestISATable checks what callSite relies on: each entry names its own
// instruction set, and its call bytes fit the buffer of maxCallBytes.
func TestISATable(t *testing.T) {
	for i := range isas {
		if isas[i].isa != isa(i) {
			t.Errorf("isas[%d].isa = %d", i, isas[i].isa)
		}
		if isas[i].maxCallBytes > maxCallBytes {
			t.Errorf("isas[%d].maxCallBytes = %d > %d", i, isas[i].maxCallBytes, maxCallBytes)
		}
	}
}
