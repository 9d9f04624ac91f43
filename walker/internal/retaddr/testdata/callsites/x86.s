	.text
	.global _start
_start:
back:	ret
	.space 0x100
caller:	call back
	call fwd
	call *%eax
	call *(%eax)
	call *0x10(%ebx)
	call *0x12345678(,%eax,4)
	call *0x1000(%esp)
	call *(%esp)
	call *0x10(%esp)
	call *0x12345678
	call *%gs:0x10
	lcall *(%eax)
	lcall $0x10,$0x1000
	addr16 call *(%si)
	addr16 call *0x1234(%bx)
	data16 call fwd16
fwd16:	ret
	nop
	jmp *%eax
	jmp back
	mov 0x10(%ebx), %eax
	push %ebp
	leave
	.space 0x100
fwd:	ret
