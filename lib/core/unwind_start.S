/* void vt_unwind_start(struct vt_registers *out): the registers a walk
 * starts from, as they are in the caller right after this call returns:
 * out->pc the return address, out->sp the stack pointer, out->fp rbp. */

#if defined(__x86_64__)
	.text
	.globl	vt_unwind_start
	.hidden	vt_unwind_start
	.type	vt_unwind_start, @function
vt_unwind_start:
	.cfi_startproc
	movq	(%rsp), %rax
	movq	%rax, 0(%rdi)
	leaq	8(%rsp), %rax
	movq	%rax, 8(%rdi)
	movq	%rbp, 16(%rdi)
	ret
	.cfi_endproc
	.size	vt_unwind_start, .-vt_unwind_start
#endif

	.section .note.GNU-stack,"",@progbits
