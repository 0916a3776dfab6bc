/* The exported dlsym and dlopen. dlsym(RTLD_NEXT, name) searches the objects
 * after the one that called it, dlsym(RTLD_DEFAULT, name) the caller's own
 * scope (its local dependencies too), and dlopen resolves a bare name with
 * its caller's RUNPATH, so all reach the real function as a tail call with
 * the caller's return address untouched. Only a CUDA name ("cu...") looked
 * up through another handle, or RTLD_DEFAULT, goes to vt_dlsym_hook in
 * dlsym.c, with the caller's address as its third argument; dlopen first
 * lets vt_dlopen_prepare look at its flags. */

#if defined(__x86_64__)
	.text
	.globl	dlsym
	.type	dlsym, @function
dlsym:
	.cfi_startproc
	cmpq	$-1, %rdi		/* RTLD_NEXT is ((void *) -1l) */
	je	1f
	testq	%rsi, %rsi
	jz	1f
	cmpb	$'c', (%rsi)
	jne	1f
	cmpb	$'u', 1(%rsi)
	jne	1f
	movq	(%rsp), %rdx		/* the caller */
	jmp	vt_dlsym_hook
1:
	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	pushq	%rsi
	.cfi_adjust_cfa_offset 8
	subq	$8, %rsp		/* keep the stack 16-byte aligned for the call */
	.cfi_adjust_cfa_offset 8
	call	vt_real_dlsym_function
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%rsi
	.cfi_adjust_cfa_offset -8
	popq	%rdi
	.cfi_adjust_cfa_offset -8
	jmp	*%rax
	.cfi_endproc
	.size	dlsym, .-dlsym

	.globl	dlopen
	.type	dlopen, @function
dlopen:
	.cfi_startproc
	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	pushq	%rsi
	.cfi_adjust_cfa_offset 8
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	call	vt_dlopen_prepare	/* (path, flags) -> the real dlopen */
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%rsi
	.cfi_adjust_cfa_offset -8
	popq	%rdi
	.cfi_adjust_cfa_offset -8
	jmp	*%rax
	.cfi_endproc
	.size	dlopen, .-dlopen

#elif defined(__aarch64__)
	.text
	.globl	dlsym
	.type	dlsym, %function
dlsym:
	.cfi_startproc
	cmn	x0, #1			/* RTLD_NEXT is ((void *) -1l) */
	b.eq	1f
	cbz	x1, 1f
	ldrb	w9, [x1]
	cmp	w9, #'c'
	b.ne	1f
	ldrb	w9, [x1, #1]
	cmp	w9, #'u'
	b.ne	1f
	mov	x2, x30			/* the caller */
	b	vt_dlsym_hook
1:
	stp	x0, x1, [sp, #-32]!
	.cfi_adjust_cfa_offset 32
	str	x30, [sp, #16]
	bl	vt_real_dlsym_function
	mov	x16, x0
	ldr	x30, [sp, #16]
	ldp	x0, x1, [sp], #32
	.cfi_adjust_cfa_offset -32
	br	x16
	.cfi_endproc
	.size	dlsym, .-dlsym

	.globl	dlopen
	.type	dlopen, %function
dlopen:
	.cfi_startproc
	stp	x0, x1, [sp, #-32]!
	.cfi_adjust_cfa_offset 32
	str	x30, [sp, #16]
	bl	vt_dlopen_prepare
	mov	x16, x0
	ldr	x30, [sp, #16]
	ldp	x0, x1, [sp], #32
	.cfi_adjust_cfa_offset -32
	br	x16
	.cfi_endproc
	.size	dlopen, .-dlopen

#else
#error "vramtrace's dlsym entry supports x86_64 and aarch64"
#endif

	.section .note.GNU-stack,"",@progbits
