	.text
	.file	"kernel.c"
	.globl	kernel                          # -- Begin function kernel
	.p2align	2
	.type	kernel,@function
kernel:                                 # @kernel
# %bb.0:
	ori	$a4, $zero, 1
	blt	$a3, $a4, .LBB0_3
# %bb.1:
	bstrpick.d	$a4, $a3, 31, 0
	move	$a3, $zero
.LBB0_2:                                # =>This Inner Loop Header: Depth=1
	ld.w	$a5, $a0, 0
	ld.w	$a6, $a1, 0
	mul.d	$a6, $a6, $a5
	srai.d	$a5, $a5, 1
	add.d	$a3, $a5, $a3
	add.d	$a3, $a3, $a6
	addi.d	$a0, $a0, 4
	addi.d	$a1, $a1, 4
	addi.d	$a4, $a4, -1
	bnez	$a4, .LBB0_2
	b	.LBB0_4
.LBB0_3:
	move	$a3, $zero
.LBB0_4:
	lu12i.w	$a0, -449390
	ori	$a1, $a0, 1171
	addi.w	$a0, $a3, 0
	mul.d	$a1, $a0, $a1
	srli.d	$a1, $a1, 32
	add.d	$a4, $a1, $a3
	bstrpick.d	$a4, $a4, 31, 31
	add.w	$a1, $a1, $a3
	srai.d	$a1, $a1, 2
	add.d	$a1, $a1, $a4
	slli.d	$a4, $a1, 3
	sub.d	$a1, $a1, $a4
	add.d	$a1, $a3, $a1
	lu12i.w	$a3, 349525
	ori	$a3, $a3, 1366
	mul.d	$a3, $a0, $a3
	srli.d	$a4, $a3, 63
	srli.d	$a3, $a3, 32
	add.d	$a3, $a3, $a4
	st.w	$a3, $a2, 0
	add.d	$a1, $a1, $a3
	st.w	$a1, $a2, 4
	ret
.Lfunc_end0:
	.size	kernel, .Lfunc_end0-kernel
                                        # -- End function
	.ident	"Debian clang version 16.0.6 (15~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.addrsig
