package symfile

// Evaluate runs a STACK WIN program: a sequence of postfix assignment
// statements ("$T0 $ebp = $eip $T0 4 + ^ =") over vars, which it updates.
// wordSize (4 or 8) sets the width of arithmetic and of memory reads (^).
func Evaluate(program string, vars map[string]uint64, mem Memory, wordSize int) error {
	return errTODO
}

// EvaluateValue evaluates a postfix expression (a CFI rule) to one value.
func EvaluateValue(expr string, vars map[string]uint64, mem Memory, wordSize int) (uint64, error) {
	return 0, errTODO
}

// FindCallerRegs applies the rules to the callee's registers, as Breakpad's
// CFIFrameInfo::FindCallerRegs: it computes .cfa, then .ra with .cfa set,
// then every other register whose rule evaluates (others are left out).
// The result holds ".cfa" and ".ra" too. It fails when .cfa or .ra is
// missing or does not evaluate.
func (r *CFIRules) FindCallerRegs(callee map[string]uint64, mem Memory, wordSize int) (map[string]uint64, error) {
	return nil, errTODO
}
