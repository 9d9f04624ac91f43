	.syntax unified
	.text
	.thumb
	.thumb_func
	.global _start
_start:
back:	nop
	.space 0x300000
	.thumb_func
caller:	bl back
	bl fwd
	blx armfn
	nop
	blx armfn
	blx r3
	blx lr
	nop
	bx lr
	pop {r4, pc}
	b.w back
	ldr.w r0, [r1, #4]
	mov r0, r1
	.arm
	.align 2
armfn:	bl back
	bl fwd
	blne armfn
	blx thumbfn
	blx thumbfn2
	blx r3
	mov lr, pc
	bx r3
	mov lr, pc
	mov pc, r2
	mov lr, pc
	ldr pc, [r3, #4]
	mov lr, pc
	ldr pc, [r3, r2, lsl #2]
	bx lr
	nop
	ldr pc, [sp], #4
	pop {r4, pc}
	b back
	.thumb
	.thumb_func
thumbfn: nop
	.thumb_func
thumbfn2: nop
	nop
	.space 0x500000
	.thumb_func
fwd:	bx lr
