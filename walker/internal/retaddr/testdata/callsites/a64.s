	.text
	.global _start
_start:
back:	ret
	.space 0x3000000
caller:	bl back
	bl fwd
	blr x3
	blraa x3, x4
	blrab x3, sp
	blraaz x5
	blrabz x30
	ret
	br x3
	braa x3, x4
	nop
	b back
	ldr x0, [x1, #8]
	.space 0x4000000
fwd:	ret
