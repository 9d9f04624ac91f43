/* Every DW_CFA instruction, written with GAS directives and .cfi_escape so
   the same source builds for amd64, i386, arm and arm64; the instructions
   are nops, only the unwind tables matter. Built by ../gen.sh. */
#ifdef DEBUG_FRAME
	.cfi_sections .debug_frame
#else
	.cfi_sections .eh_frame
#endif
	.text
	.globl allcfi
	.type allcfi, %function
allcfi:
	.cfi_startproc
	nop
	.cfi_def_cfa 7, 16
	nop
	.cfi_def_cfa_offset 32
	nop
	.cfi_adjust_cfa_offset 8
	.cfi_offset 3, -16
	.cfi_rel_offset 6, 8
	nop
	.cfi_register 5, 2
	.cfi_undefined 4
	.cfi_same_value 1
	nop
	.cfi_remember_state
	.cfi_def_cfa_register 6
	.cfi_val_offset 9, -8
	nop
	.cfi_restore_state
	nop
	.cfi_restore 3
	.cfi_escape 0x0f, 0x03, 0x76, 0x08, 0x06 /* def_cfa_expression: breg6 8; deref */
	nop
	.cfi_escape 0x10, 0x05, 0x02, 0x76, 0x10 /* expression r5: breg6 16 */
	.cfi_escape 0x16, 0x07, 0x02, 0x76, 0x18 /* val_expression r7: breg6 24 */
	nop
	.cfi_def_cfa 7, 8
	.cfi_escape 0x2e, 0x10                   /* GNU_args_size 16 */
	.cfi_escape 0x2f, 0x04, 0x02             /* GNU_negative_offset_extended r4 */
	.cfi_escape 0x11, 0x08, 0x7e             /* offset_extended_sf r8 -2 */
	.cfi_escape 0x12, 0x07, 0x7c             /* def_cfa_sf r7 -4 */
	nop
	.cfi_escape 0x13, 0x7a                   /* def_cfa_offset_sf -6 */
	.cfi_escape 0x15, 0x0a, 0x7f             /* val_offset_sf r10 -1 */
	.cfi_escape 0x05, 0x0b, 0x03             /* offset_extended r11 3 */
	.cfi_escape 0x14, 0x0c, 0x02             /* val_offset r12 2 */
	nop
	.cfi_escape 0x06, 0x0b                   /* restore_extended r11 */
	.skip 300                                /* advance_loc2 */
	.cfi_def_cfa 7, 24
	.skip 70000                              /* advance_loc4 */
	.cfi_def_cfa 7, 40
	nop
	.cfi_endproc
	.size allcfi, .-allcfi

	.globl sigtramp
	.type sigtramp, %function
	nop
sigtramp:
	.cfi_startproc
	.cfi_signal_frame
	.cfi_escape 0x0f, 0x02, 0x77, 0x40       /* def_cfa_expression: breg7 -64 */
	.cfi_escape 0x10, 0x06, 0x03, 0x77, 0xc8, 0x00 /* expression r6: breg7 72 */
	nop
	nop
	.cfi_endproc
	.size sigtramp, .-sigtramp

#ifdef __aarch64__
	.globl pac
	.type pac, %function
pac:
	.cfi_startproc
	paciasp
	.cfi_negate_ra_state
	stp x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	nop
	ldp x29, x30, [sp], 16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	autiasp
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size pac, .-pac
#endif
	.section .note.GNU-stack,"",%progbits
