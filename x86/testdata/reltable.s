# Jumps through tables of 4-byte offsets (jumptable_test.go) whose base
# register is not the table's address on every path to the jmp: the lifter
# must leave them unsupported, never branch on a table it has not proved.
	.text
	.globl	ok
	.type	ok, @function
ok:	# the table's address loaded once, before the loop: supported
	leaq	.Lt0(%rip), %rsi
	xorl	%eax, %eax
.Lok_loop:
	movl	%edi, %ecx
	andl	$1, %ecx
	movslq	(%rsi,%rcx,4), %rdx
	addq	%rsi, %rdx
	jmp	*%rdx
.Lok_a:
	addl	$1, %eax
	decl	%edi
	jg	.Lok_loop
	ret
.Lok_b:
	addl	$2, %eax
	decl	%edi
	jg	.Lok_loop
	ret
	.size	ok, .-ok

	.globl	moved
	.type	moved, @function
moved:	# a case moves the base register: only the first pass reads the table
	leaq	.Lt1(%rip), %rsi
	xorl	%eax, %eax
.Lmoved_loop:
	movl	%edi, %ecx
	andl	$1, %ecx
	movslq	(%rsi,%rcx,4), %rdx
	addq	%rsi, %rdx
	jmp	*%rdx
.Lmoved_a:
	addq	$4, %rsi
	addl	$1, %eax
	decl	%edi
	jg	.Lmoved_loop
	ret
.Lmoved_b:
	addl	$2, %eax
	decl	%edi
	jg	.Lmoved_loop
	ret
	.size	moved, .-moved

	.globl	bypassed
	.type	bypassed, @function
bypassed:	# the lea is on one path to the jmp only
	testl	%esi, %esi
	je	.Lbypassed_jump
	leaq	.Lt2(%rip), %rsi
.Lbypassed_jump:
	movl	%edi, %ecx
	andl	$1, %ecx
	movslq	(%rsi,%rcx,4), %rdx
	addq	%rsi, %rdx
	jmp	*%rdx
.Lbypassed_a:
	movl	$1, %eax
	ret
.Lbypassed_b:
	movl	$2, %eax
	ret
	.size	bypassed, .-bypassed

	.section	.rodata
	.align 4
.Lt0:	.long	.Lok_a-.Lt0
	.long	.Lok_b-.Lt0
.Lt1:	.long	.Lmoved_a-.Lt1
	.long	.Lmoved_b-.Lt1
.Lt2:	.long	.Lbypassed_a-.Lt2
	.long	.Lbypassed_b-.Lt2
	.section	.note.GNU-stack,"",@progbits
