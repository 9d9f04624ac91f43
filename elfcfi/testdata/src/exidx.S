/* ARM EHABI unwind opcodes of every kind the assembler writes, for the
   .ARM.exidx/.ARM.extab tests (compared with readelf -u). Built by ../gen.sh
   for 32-bit ARM only. */
	.syntax unified
	.arm
	.fpu neon
	.text
#define FUNC(name) .globl name; .type name, %function; name: .fnstart
#define END(name) nop; .fnend; .size name, .-name

FUNC(ex_small)            /* short model: pop r4-r7, lr; vsp += 16 */
	.save {r4-r7, lr}
	.pad #16
END(ex_small)

FUNC(ex_mask)             /* pop under mask (0x8x), r0-r3 (0xb1) */
	.save {r4, r6, r9, r11, lr}
	.save {r0-r3}
	.pad #4
END(ex_mask)

FUNC(ex_bigpad)           /* 0xb2 uleb and 0x7f: vsp -= */
	.save {r4, lr}
	.pad #0x2000
END(ex_bigpad)

FUNC(ex_fp)               /* vsp = r7 */
	.save {r4-r7, lr}
	.setfp r7, sp, #12
	.pad #8
END(ex_fp)

FUNC(ex_vfp)              /* VPUSH d8-d15, d16-d17, d1 */
	.save {r4, lr}
	.vsave {d8-d15}
	.vsave {d16-d17}
	.vsave {d1}
END(ex_vfp)

FUNC(ex_cantunwind)
	.cantunwind
END(ex_cantunwind)

FUNC(ex_long)             /* many opcodes: the long model (index 1) */
	.save {r4-r11, lr}
	.vsave {d8-d9}
	.pad #20
	.save {r0-r1}
	.pad #300
	.vsave {d10}
	.pad #8
END(ex_long)

FUNC(ex_personality)      /* a generic personality routine */
	.personality __gxx_personality_v0
	.save {r4, lr}
	.pad #8
	.handlerdata
	.word 0
END(ex_personality)

	.globl __gxx_personality_v0
	.type __gxx_personality_v0, %function
__gxx_personality_v0:
	bx lr
	.section .note.GNU-stack,"",%progbits
