package report

import (
	"encoding/json"
	"strconv"

	"github.com/minidump-stackwalk/minidump-stackwalk/crashinfo"
)

// This file turns crashinfo's analysis of the faulting instruction into
// crash_info's instruction, memory_accesses, instruction_pointer_update,
// adjusted_address and possible_bit_flips (rust-minidump's spellings).

// JSONMemoryAccess is one entry of crash_info.memory_accesses.
type JSONMemoryAccess struct {
	AccessType      string `json:"access_type,omitempty"` // absent when unknown
	Address         string `json:"address"`
	LikelyGuardPage bool   `json:"is_likely_guard_page,omitempty"` // only when true
	Size            *int   `json:"size"`
}

func (b *jsonBuilder) addCrashAnalysis(c *JSONCrashInfo, a crashinfo.Result) {
	if a.Inconsistencies != nil {
		c.CrashInconsistencies = a.Inconsistencies
	}
	b.addBitFlips(c, a.BitFlips)
	if a.Instruction == "" {
		return
	}
	c.Instruction = strPtr(a.Instruction)
	if a.AccessesKnown {
		list := []JSONMemoryAccess{}
		for _, acc := range a.Accesses {
			j := JSONMemoryAccess{AccessType: acc.Type.String(), Address: b.hex(acc.Address), LikelyGuardPage: acc.LikelyGuardPage}
			if acc.Size > 0 {
				size := acc.Size
				j.Size = &size
			}
			list = append(list, j)
		}
		c.MemoryAccesses = list
	}
	if a.IPUpdate != nil {
		c.InstructionPointerUpdate = map[string]string{"address": b.hex(a.IPUpdate.Address)}
	}
	if adj := a.Adjusted; adj != nil {
		switch adj.Kind {
		case crashinfo.NonCanonical:
			c.AdjustedAddress = map[string]string{"address": b.hex(adj.Value), "kind": "non-canonical"}
		case crashinfo.NullPointer:
			c.AdjustedAddress = map[string]string{"kind": "null-pointer", "offset": b.hex(adj.Value)}
		}
	}
}

func (b *jsonBuilder) addBitFlips(c *JSONCrashInfo, flips []crashinfo.BitFlip) {
	for _, f := range flips {
		jf := JSONBitFlip{
			Address: b.hex(f.Address),
			// serde prints an f32 by its shortest decimal form.
			Confidence: json.Number(strconv.FormatFloat(float64(f.Confidence), 'g', -1, 32)),
			Details: JSONBitFlipDetails{IsNull: f.IsNull, NearbyRegisters: f.NearbyRegisters,
				PoisonRegisters: f.PoisonRegisters, WasLow: f.WasLow, WasNonCanonical: f.WasNonCanonical},
		}
		if f.SourceRegister != "" {
			jf.SourceRegister = strPtr(f.SourceRegister)
		}
		c.PossibleBitFlips = append(c.PossibleBitFlips, jf)
	}
}
