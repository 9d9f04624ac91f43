package minidump

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// guidAge formats as its fmt.Sprintf did (the oracle).
func TestGUIDAgeMatchesFmt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 1000 {
		g := make([]byte, 16)
		for j := range g {
			g[j] = byte(rng.Uint32())
		}
		if i < 2 {
			g = make([]byte, 16) // all zeros
			if i == 1 {
				g = bytes.Repeat([]byte{0xff}, 16)
			}
		}
		age := rng.Uint32() >> (rng.Uint32() % 33)
		want := fmt.Sprintf("%08X%04X%04X%X%x", le.Uint32(g), le.Uint16(g[4:]), le.Uint16(g[6:]), g[8:16], age)
		if got := guidAge(g, age); got != want {
			t.Fatalf("guidAge(%x, %d) = %q, want %q", g, age, got, want)
		}
	}
}
