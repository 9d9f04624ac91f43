package symfile

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testRegisters are Registers over maps, for comparing Evaluator with
// FindCallerRegs.
type testRegisters struct{ in, out map[string]uint64 }

func (r *testRegisters) Register(name string) (uint64, bool) { v, ok := r.in[name]; return v, ok }
func (r *testRegisters) SetCaller(name string, v uint64)     { r.out[name] = v }

// TestEvaluatorMatchesFindCallerRegs: the walk's evaluator gives the
// caller registers FindCallerRegs gives, and fails where it fails (with
// the bare sentinel of its error), for rule sets that evaluate, read
// memory that is not there, name unknown registers, divide by zero and
// leave two values.
func TestEvaluatorMatchesFindCallerRegs(t *testing.T) {
	mem := mapMemory{}
	for i := range uint64(64) {
		mem[0x1000+i] = byte(i)
	}
	callee := map[string]uint64{"$rsp": 0x1010, "$rbp": 0x1020, "$rbx": 7, "$rip": 0x400}
	sets := []CFIRules{
		{CFA: "$rsp 16 +", RA: ".cfa -8 + ^", Rules: []CFIRule{{"$rbp", ".cfa -16 + ^"}, {"$rbx", "$rbx 1 +"}}},
		{CFA: "$rbp 16 +", RA: ".cfa -8 + ^", Rules: []CFIRule{{"$r12", "$r12"}, {"$rbp", ".cfa -16 + ^"}}},
		{CFA: "$rsp 8 +", RA: ".cfa -8 + ^", Rules: []CFIRule{{"$rbx", ".cfa 0x100000 + ^"}, {"$rbp", "1 0 /"}}},
		{CFA: "$rsp 0x1000000 +", RA: ".cfa ^"},
		{CFA: "$r13 8 +", RA: ".cfa ^"},
		{CFA: "$rsp 8", RA: ".cfa ^"},
		{CFA: "$rsp", RA: ".undef"},
		{CFA: "$rsp 8 +"},
		{CFA: "$rsp -16 @", RA: "$rip", Rules: []CFIRule{{"$rbx", ".cfa"}, {"$rbx", "2"}}},
	}
	var ev Evaluator
	for _, r := range sets {
		want, werr := r.FindCallerRegs(callee, mem, 8)
		got := &testRegisters{in: callee, out: map[string]uint64{}}
		gerr := ev.CallerRegs(&r, got, mem, 8)
		if (werr == nil) != (gerr == nil) || werr != nil && !errors.Is(werr, gerr) {
			t.Errorf("%+v: error %v, FindCallerRegs %v", r, gerr, werr)
			continue
		}
		if werr != nil {
			if len(got.out) != 0 {
				t.Errorf("%+v: failed, but set %v", r, got.out)
			}
			continue
		}
		if diff := cmp.Diff(want, got.out); diff != "" {
			t.Errorf("%+v: caller registers (-FindCallerRegs +Evaluator):\n%s", r, diff)
		}
	}
}

// TestEvaluatorAllocatesNothing: a walk's CFI frames cost no allocation
// (issue 29), failing ones included.
func TestEvaluatorAllocatesNothing(t *testing.T) {
	mem := mapMemory{}
	for i := range uint64(64) {
		mem[0x1000+i] = byte(i)
	}
	regs := &testRegisters{in: map[string]uint64{"$rsp": 0x1010, "$rbp": 0x1020}, out: map[string]uint64{}}
	ok := CFIRules{CFA: "$rsp 24 +", RA: ".cfa -8 + ^", Rules: []CFIRule{{"$rbp", ".cfa -16 + ^"}, {"$rbx", ".cfa -24 + ^"}}}
	bad := CFIRules{CFA: "$r13 8 +", RA: ".cfa ^"}
	var ev Evaluator
	ev.CallerRegs(&ok, regs, mem, 8) // fills regs.out's map once
	n := testing.AllocsPerRun(100, func() {
		if ev.CallerRegs(&ok, regs, mem, 8) != nil || ev.CallerRegs(&bad, regs, mem, 8) == nil {
			t.Fatal("unexpected result")
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per run, want 0", n)
	}
}
