package elfcfi

import (
	"encoding/binary"
	"errors"
	"testing"
)

// TestEvalExpr checks each operation against the values DWARF 5 section
// 2.5.1 defines for it.
func TestEvalExpr(t *testing.T) {
	regs := map[uint64]uint64{0: 10, 5: 0x1000, 40: 0x2000}
	mem := testMemory{0x1008: 0x1122334455667788, 0x2000: 0xfffffff0}
	env := func(size int) *ExprEnv {
		return &ExprEnv{Reg: func(r uint64) (uint64, bool) { v, ok := regs[r]; return v, ok },
			Mem: mem.read, AddrSize: size, Order: binary.LittleEndian}
	}
	for _, tc := range []struct {
		name string
		expr []byte
		push []uint64
		size int
		want uint64
	}{
		{"lit", []byte{0x30 + 7}, nil, 8, 7},
		{"addr", []byte{0x03, 1, 2, 3, 4, 5, 6, 7, 8}, nil, 8, 0x0807060504030201},
		{"addr32", []byte{0x03, 1, 2, 3, 4}, nil, 4, 0x04030201},
		{"const1u", []byte{0x08, 0xff}, nil, 8, 0xff},
		{"const1s", []byte{0x09, 0xff}, nil, 8, ^uint64(0)},
		{"const2s32", []byte{0x0b, 0xfe, 0xff}, nil, 4, 0xfffffffe},
		{"const4u", []byte{0x0c, 1, 0, 0, 0x80}, nil, 8, 0x80000001},
		{"const8s", []byte{0x0f, 1, 0, 0, 0, 0, 0, 0, 0x80}, nil, 8, 0x8000000000000001},
		{"constu", []byte{0x10, 0xe5, 0x8e, 0x26}, nil, 8, 624485},
		{"consts", []byte{0x11, 0x7f}, nil, 8, ^uint64(0)},
		{"breg", []byte{0x75, 0x08}, nil, 8, 0x1008},
		{"bregx", []byte{0x92, 40, 0x7c}, nil, 8, 0x1ffc},
		{"deref", []byte{0x75, 0x08, 0x06}, nil, 8, 0x1122334455667788},
		{"deref_size", []byte{0x75, 0x08, 0x94, 2}, nil, 8, 0x7788},
		{"deref32", []byte{0x92, 40, 0, 0x06}, nil, 4, 0xfffffff0},
		{"pushed", []byte{0x23, 16}, []uint64{0x100}, 8, 0x110},
		{"dup plus", []byte{0x33, 0x12, 0x22}, nil, 8, 6},
		{"drop", []byte{0x31, 0x32, 0x13}, nil, 8, 1},
		{"over", []byte{0x31, 0x32, 0x14}, nil, 8, 1},
		{"pick", []byte{0x31, 0x32, 0x33, 0x15, 2}, nil, 8, 1},
		{"swap minus", []byte{0x31, 0x35, 0x16, 0x1c}, nil, 8, 4},
		{"rot", []byte{0x31, 0x32, 0x33, 0x17, 0x13, 0x13}, nil, 8, 3},
		{"abs", []byte{0x11, 0x7b, 0x19}, nil, 8, 5},
		{"neg32", []byte{0x35, 0x1f}, nil, 4, 0xfffffffb},
		{"not", []byte{0x30, 0x20}, nil, 8, ^uint64(0)},
		{"and or xor", []byte{0x3c, 0x3a, 0x1a, 0x31, 0x21, 0x3f, 0x27}, nil, 8, 0xf ^ (0xc&0xa | 1)},
		{"signed div", []byte{0x11, 0x79, 0x32, 0x1b}, nil, 8, uint64(^uint64(0) - 2)}, // -7/2 = -3
		{"mod", []byte{0x37, 0x33, 0x1d}, nil, 8, 1},
		{"mul wraps at 32", []byte{0x0c, 0, 0, 1, 0, 0x0c, 0, 0, 1, 0, 0x1e}, nil, 4, 0},
		{"shl shr", []byte{0x31, 0x34, 0x24, 0x32, 0x25}, nil, 8, 4},
		{"shra", []byte{0x11, 0x70, 0x32, 0x26}, nil, 8, ^uint64(3)},
		{"compare signed", []byte{0x11, 0x7f, 0x30, 0x2d}, nil, 8, 1}, // -1 < 0
		{"eq ne ge gt le", []byte{0x32, 0x32, 0x29, 0x31, 0x2e, 0x30, 0x2a, 0x30, 0x2b, 0x31, 0x2c}, nil, 8, 1},
		{"skip", []byte{0x2f, 1, 0, 0x31, 0x32}, nil, 8, 2},
		{"bra taken", []byte{0x31, 0x28, 1, 0, 0x33, 0x34}, nil, 8, 4},
		{"bra not taken", []byte{0x30, 0x28, 1, 0, 0x33, 0x34}, nil, 8, 4},
		{"bra loop", []byte{0x33, 0x31, 0x1c, 0x12, 0x28, 0xfa, 0xff}, nil, 8, 0}, // count 3 down to 0
		{"nop", []byte{0x96, 0x31}, nil, 8, 1},
	} {
		got, err := EvalExpr(tc.expr, env(tc.size), tc.push...)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %#x, %v; want %#x", tc.name, got, err, tc.want)
		}
	}
}

func TestEvalExprErrors(t *testing.T) {
	env := &ExprEnv{Reg: func(uint64) (uint64, bool) { return 0, false },
		Mem: testMemory{}.read, AddrSize: 8, Order: binary.LittleEndian}
	for _, tc := range []struct {
		name   string
		expr   []byte
		offset int
	}{
		{"empty", nil, 0},
		{"underflow", []byte{0x31, 0x22}, 1},
		{"truncated", []byte{0x31, 0x0c, 1, 2}, 1},
		{"unknown register", []byte{0x31, 0x75, 0}, 1},
		{"unreadable", []byte{0x31, 0x06}, 1},
		{"division by zero", []byte{0x31, 0x30, 0x1b}, 2},
		{"branch outside", []byte{0x2f, 0x10, 0}, 0},
		{"register location", []byte{0x50}, 0},
		{"call_frame_cfa", []byte{0x9c}, 0},
		{"deref_size 9", []byte{0x31, 0x94, 9}, 1},
		{"endless loop", []byte{0x2f, 0xfd, 0xff}, 0},
		{"stack bomb", []byte{0x31, 0x12, 0x2f, 0xfc, 0xff}, 1},
	} {
		_, err := EvalExpr(tc.expr, env)
		var ee *ExprError
		if !errors.As(err, &ee) {
			t.Errorf("%s: error %v, want an *ExprError", tc.name, err)
			continue
		}
		if ee.Offset != tc.offset && tc.name != "empty" {
			t.Errorf("%s: error at offset %d, want %d: %v", tc.name, ee.Offset, tc.offset, err)
		}
	}
}
