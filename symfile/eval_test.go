package symfile

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

type mapMemory map[uint64]byte

func (m mapMemory) ReadMemory(addr uint64, p []byte) error {
	for i := range p {
		b, ok := m[addr+uint64(i)]
		if !ok {
			return errors.New("unmapped")
		}
		p[i] = b
	}
	return nil
}

func TestEvaluateValueOperators(t *testing.T) {
	mem := mapMemory{}
	for i := range 8 {
		mem[0x1000+uint64(i)] = byte(0x11 * (i + 1)) // 11 22 33 44 55 66 77 88
	}
	vars := map[string]uint64{"$rsp": 0x1000, ".cfa": 0x2000, "$T0": 7, ".raSearch": 0x1000, "$esp": 0xfffffffe}
	for _, tc := range []struct {
		expr string
		word int
		want uint64
	}{
		{"1 2 +", 8, 3},
		{"5 7 -", 8, 0xfffffffffffffffe},
		{"5 7 -", 4, 0xfffffffe},
		{"6 7 *", 8, 42},
		{"43 5 /", 8, 8},
		{"43 5 %", 8, 3},
		{"0x1237 16 @", 8, 0x1230}, // align down
		{"$rsp ^", 8, 0x8877665544332211},
		{"$rsp ^", 4, 0x44332211},
		{".raSearch ^", 4, 0x44332211},
		{".cfa -8 +", 8, 0x1ff8}, // negative literal
		{"$T0 0x10 +", 8, 0x17},  // hex literal (our extension)
		{"$esp 4 +", 4, 2},       // 32-bit wraparound
		{"$rsp", 8, 0x1000},
		{"18446744073709551615 1 +", 8, 0},
	} {
		got, err := EvaluateValue(tc.expr, vars, mem, tc.word)
		if err != nil || got != tc.want {
			t.Errorf("EvaluateValue(%q, word %d) = %#x, %v; want %#x", tc.expr, tc.word, got, err, tc.want)
		}
	}
	if vars["$rsp"] != 0x1000 || len(vars) != 5 {
		t.Errorf("EvaluateValue modified vars: %v", vars)
	}
}

func TestEvaluateProgram(t *testing.T) {
	// A STACK WIN type 4 program from Breakpad's module1.out, run as
	// Breakpad's x86 walker does with $ebp = 0x1000.
	mem := mapMemory{}
	put := func(a uint64, v uint32) {
		for i := range 4 {
			mem[a+uint64(i)] = byte(v >> (8 * i))
		}
	}
	put(0x1000, 0x2000) // saved ebp
	put(0x1004, 0x401234)
	vars := map[string]uint64{"$ebp": 0x1000, "$esp": 0xff0}
	if err := Evaluate("$eip $ebp 4 + ^ = $esp $ebp 8 + = $ebp $ebp ^ =", vars, mem, 4); err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{"$eip": 0x401234, "$esp": 0x1008, "$ebp": 0x2000}
	for k, v := range want {
		if vars[k] != v {
			t.Errorf("%s = %#x, want %#x", k, vars[k], v)
		}
	}
	// "=$x" written without a space is "=" then "$x", as Breakpad reads it;
	// $T0 is assigned first and used later in the same program.
	vars = map[string]uint64{"$ebp": 0x1000}
	if err := Evaluate("$T0 $ebp 4 + = $eip $T0 ^ =$esp $T0 4 + =", vars, mem, 4); err == nil {
		// "=$esp" splits into "=" (assigning $T0 ^ to $eip) and "$esp" pushed; then "$T0 4 + =" assigns to $esp.
		if vars["$T0"] != 0x1004 || vars["$eip"] != 0x401234 || vars["$esp"] != 0x1008 {
			t.Errorf("vars = %v", vars)
		}
	} else {
		t.Fatal(err)
	}
}

func TestEvaluateErrors(t *testing.T) {
	mem := mapMemory{0x10: 1}
	vars := map[string]uint64{"$rsp": 0x1000}
	for _, tc := range []struct {
		expr string
		want error
	}{
		{"+", ErrStackUnderflow},
		{"1 +", ErrStackUnderflow},
		{"^", ErrStackUnderflow},
		{"$rbp 8 +", ErrUnknownName},
		{"$rsp ^", ErrMemory},
		{"1 0 /", ErrDivideByZero},
		{"1 0 %", ErrDivideByZero},
		{"1 2", ErrSyntax}, // two results
		{"", ErrSyntax},    // no result
		{".undef", ErrUndefined},
		{"0x10 ^", ErrMemory}, // partial read: 1 byte mapped, 8 needed
		{"$x 1 =", ErrSyntax}, // assignment in a value expression
	} {
		_, err := EvaluateValue(tc.expr, vars, mem, 8)
		if !errors.Is(err, tc.want) {
			t.Errorf("EvaluateValue(%q) error = %v, want %v", tc.expr, err, tc.want)
		}
	}
	for _, tc := range []struct {
		prog string
		want error
	}{
		{"1 =", ErrStackUnderflow},
		{"$eip =", ErrUnknownName}, // the value popped is the unknown $eip
		{"=", ErrStackUnderflow},
		{"5 1 =", ErrSyntax},      // assign to a literal
		{"eip 1 =", ErrSyntax},    // assign to a name without '$'
		{"$eip 1 = 2", ErrSyntax}, // value left on the stack
		{"$eip $nope =", ErrUnknownName},
	} {
		err := Evaluate(tc.prog, map[string]uint64{}, mem, 4)
		if !errors.Is(err, tc.want) {
			t.Errorf("Evaluate(%q) error = %v, want %v", tc.prog, err, tc.want)
		}
	}
	if _, err := EvaluateValue("1", nil, nil, 3); !errors.Is(err, ErrSyntax) {
		t.Errorf("word size 3: %v", err)
	}
	if _, err := EvaluateValue("1 ^", nil, nil, 8); !errors.Is(err, ErrMemory) {
		t.Errorf("nil memory: %v", err)
	}
}

// TestParseLiteralMatchesStrconv holds parseLiteral's fast decimal path to
// strconv's answers: the 19- and 20-digit edges, overflow, signs, hex and
// what is not a number.
func TestParseLiteralMatchesStrconv(t *testing.T) {
	want := func(s string) (uint64, bool) {
		neg := strings.HasPrefix(s, "-")
		u := strings.TrimPrefix(s, "-")
		if u == "" || u[0] < '0' || u[0] > '9' {
			return 0, false
		}
		var v uint64
		var err error
		if len(u) > 2 && (u[:2] == "0x" || u[:2] == "0X") {
			v, err = strconv.ParseUint(u[2:], 16, 64)
		} else {
			v, err = strconv.ParseUint(u, 10, 64)
		}
		if err != nil {
			return 0, false
		}
		if neg {
			v = -v
		}
		return v, true
	}
	for _, s := range []string{
		"0", "8", "-8", "16", "-24", "007", "-0", "9999999999999999999", "1234567890123456789",
		"10000000000000000000", "18446744073709551615", "18446744073709551616", "99999999999999999999",
		"-18446744073709551615", "0x10", "0X1f", "-0x8", "0x", "12a", "1-", "", "-", "$rsp", ".cfa", "1 2",
	} {
		gv, gok := parseLiteral(s)
		wv, wok := want(s)
		if gv != wv || gok != wok {
			t.Errorf("parseLiteral(%q) = %d, %v; strconv says %d, %v", s, gv, gok, wv, wok)
		}
	}
}
