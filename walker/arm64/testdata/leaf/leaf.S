/* A leaf without CFI directives: dump_syms writes no STACK CFI for it. */
	.text
	.globl	asm_leaf
	.type	asm_leaf, %function
asm_leaf:
	add	w1, w1, #1
	str	w1, [x0]
	ret
	.size	asm_leaf, .-asm_leaf
	.section .note.GNU-stack,"",%progbits
