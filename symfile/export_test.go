package symfile

// EvaluateValue evaluates a postfix expression (a CFI rule) to one value.
// vars is not modified.
func EvaluateValue(expr string, vars map[string]uint64, mem Memory, wordSize int) (uint64, error) {
	var e evaluator
	return e.value(expr, vars, mem, wordSize)
}
