package hostile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Truncations is how many of the variants MutateDump and MutateSymbols
// return for k = 0, 1, ... are truncations; the later ones are mutations.
const Truncations = 5

// MutateDump returns the k-th variant of a dump (or any binary input):
// for k < Truncations a random prefix, then a copy with 1 to 16 random
// 32-bit words changed: a random byte, 0xffffffff, or a random count below
// 2^20 (sizes, counts and offsets that are large but not absurd).
func MutateDump(rng *rand.Rand, data []byte, k int) []byte {
	if k < Truncations || len(data) < 8 {
		return data[:rng.IntN(len(data)+1)]
	}
	out := bytes.Clone(data)
	for range 1 + rng.IntN(16) {
		off := rng.IntN(len(out)-4) &^ 3
		switch rng.IntN(3) {
		case 0:
			out[off+rng.IntN(4)] = byte(rng.Uint32())
		case 1:
			binary.LittleEndian.PutUint32(out[off:], 0xffffffff)
		default:
			binary.LittleEndian.PutUint32(out[off:], uint32(rng.IntN(1<<20)))
		}
	}
	return out
}

// MutateSymbols returns the k-th variant of a Breakpad symbol file: for
// k < Truncations a random prefix, then a copy with 1 to 8 edits of its
// lines: a field set to an extreme number, a random byte, a line deleted,
// repeated up to 1000 times, moved, or replaced by a record of another
// kind with random fields, a CFI rule replaced by a random postfix
// expression.
func MutateSymbols(rng *rand.Rand, data []byte, k int) []byte {
	if k < Truncations || len(data) == 0 {
		return data[:rng.IntN(len(data)+1)]
	}
	lines := strings.SplitAfter(string(data), "\n")
	for range 1 + rng.IntN(8) {
		if len(lines) == 0 {
			break
		}
		i := rng.IntN(len(lines))
		switch rng.IntN(7) {
		case 0: // a number field to an extreme value
			f := strings.Fields(lines[i])
			if len(f) > 1 {
				f[1+rng.IntN(len(f)-1)] = extremes[rng.IntN(len(extremes))]
				lines[i] = strings.Join(f, " ") + "\n"
			}
		case 1: // a random byte
			if l := lines[i]; len(l) > 0 {
				b := []byte(l)
				b[rng.IntN(len(b))] = byte(rng.Uint32())
				lines[i] = string(b)
			}
		case 2:
			lines = append(lines[:i], lines[i+1:]...)
		case 3:
			lines[i] = strings.Repeat(ensureNewline(lines[i]), 1+rng.IntN(1000))
		case 4:
			j := rng.IntN(len(lines))
			lines[i], lines[j] = lines[j], lines[i]
		case 5:
			lines[i] = randomRecord(rng)
		default:
			lines[i] = randomCFI(rng)
		}
	}
	return []byte(strings.Join(lines, ""))
}

var extremes = []string{"0", "-1", "ffffffffffffffff", "7fffffff", "80000000", "ffffffff", "18446744073709551616",
	"99999999999999999999", "x", ""}

func ensureNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

func randomRecord(rng *rand.Rand) string {
	n := func() string {
		if rng.IntN(4) == 0 {
			return extremes[rng.IntN(len(extremes))]
		}
		return fmt.Sprintf("%x", rng.Uint64()>>(rng.IntN(64)))
	}
	switch rng.IntN(7) {
	case 0:
		return fmt.Sprintf("FUNC %s %s %s f%d\n", n(), n(), n(), rng.IntN(100))
	case 1:
		return fmt.Sprintf("FUNC m %s %s %s f\n", n(), n(), n())
	case 2:
		return fmt.Sprintf("PUBLIC %s %s p\n", n(), n())
	case 3:
		return fmt.Sprintf("FILE %s %s\n", n(), strings.Repeat("a/", rng.IntN(64)))
	case 4:
		return fmt.Sprintf("INLINE %s %s %s %s %s\n", n(), n(), n(), n(), n())
	case 5:
		return fmt.Sprintf("INLINE_ORIGIN %s o\n", n())
	default:
		return fmt.Sprintf("STACK WIN 4 %s %s %s %s %s %s %s %s %s %s\n", n(), n(), n(), n(), n(), n(), n(), n(), n(), n())
	}
}

func randomCFI(rng *rand.Rand) string {
	tokens := []string{"$rsp", "$esp", "$sp", "$x29", "$r11", ".cfa", ".ra", "8", "-8", "0", "ffffffffffffffff",
		"+", "-", "*", "/", "%", "^", "@", "=", ".undef"}
	var b strings.Builder
	fmt.Fprintf(&b, "STACK CFI INIT %x %x .cfa:", rng.Uint64()>>rng.IntN(64), rng.Uint64()>>rng.IntN(64))
	for range rng.IntN(64) {
		b.WriteString(" " + tokens[rng.IntN(len(tokens))])
	}
	b.WriteString(" .ra:")
	for range rng.IntN(8) {
		b.WriteString(" " + tokens[rng.IntN(len(tokens))])
	}
	b.WriteString("\n")
	return b.String()
}
