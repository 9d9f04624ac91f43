	.text
	.global _start
_start:
back:	ret
	.space 0x100
caller:	call back
	call fwd
	call *%rax
	call *%r8
	call *(%rax)
	call *(%r13)
	call *(%r12)
	call *0x10(%rip)
	call *0x10(%rsp)
	call *0x12345678(,%rax,8)
	call *0x12345678(%r12,%r9,8)
	call *%fs:0x10
	lcall *(%rax)
	rex.W call *(%rax)
	addr32 call *(%eax)
	ret
	nop
	jmp *%rax
	jmp back
	mov 0x10(%rbx), %rax
	push %rbp
	leave
	.space 0x100
fwd:	ret
