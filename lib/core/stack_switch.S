/* void vt_stack_switch(void (*fn)(void *), void *arg, void *top): calls
 * fn(arg) with the stack pointer at top, and returns on the caller's stack.
 * The frame pointer keeps the caller's frame, and the unwind table says so,
 * so a walk from fn's stack goes on into the caller's frames as if no switch
 * had happened. */

#if defined(__x86_64__)
	.text
	.globl	vt_stack_switch
	.hidden	vt_stack_switch
	.type	vt_stack_switch, @function
vt_stack_switch:
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	movq	%rdx, %rsp
	movq	%rdi, %rax
	movq	%rsi, %rdi
	call	*%rax
	movq	%rbp, %rsp
	.cfi_def_cfa_register %rsp
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size	vt_stack_switch, .-vt_stack_switch

#elif defined(__aarch64__)
	.text
	.globl	vt_stack_switch
	.hidden	vt_stack_switch
	.type	vt_stack_switch, %function
vt_stack_switch:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	mov	x29, sp
	.cfi_def_cfa_register x29
	mov	sp, x2
	mov	x16, x0
	mov	x0, x1
	blr	x16
	mov	sp, x29
	.cfi_def_cfa_register sp
	ldp	x29, x30, [sp], #16
	.cfi_def_cfa_offset 0
	.cfi_restore x29
	.cfi_restore x30
	ret
	.cfi_endproc
	.size	vt_stack_switch, .-vt_stack_switch

#else
#error "vramtrace's stack switch supports x86_64 and aarch64"
#endif

	.section .note.GNU-stack,"",@progbits
