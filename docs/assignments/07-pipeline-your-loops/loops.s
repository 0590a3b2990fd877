	.text
	.file	"loops.c"
	.globl	axpy                            # -- Begin function axpy
	.p2align	2
	.type	axpy,@function
axpy:                                   # @axpy
# %bb.0:
	ori	$a3, $zero, 1
	blt	$a0, $a3, .LBB0_3
# %bb.1:
	bstrpick.d	$a0, $a0, 31, 0
.LBB0_2:                                # =>This Inner Loop Header: Depth=1
	fld.d	$fa1, $a2, 0
	fld.d	$fa2, $a1, 0
	fmadd.d	$fa1, $fa0, $fa2, $fa1
	fst.d	$fa1, $a2, 0
	addi.d	$a1, $a1, 8
	addi.d	$a2, $a2, 8
	addi.d	$a0, $a0, -1
	bnez	$a0, .LBB0_2
.LBB0_3:
	ret
.Lfunc_end0:
	.size	axpy, .Lfunc_end0-axpy
                                        # -- End function
	.globl	axpy_restrict                   # -- Begin function axpy_restrict
	.p2align	2
	.type	axpy_restrict,@function
axpy_restrict:                          # @axpy_restrict
# %bb.0:
	ori	$a3, $zero, 1
	blt	$a0, $a3, .LBB1_3
# %bb.1:
	bstrpick.d	$a0, $a0, 31, 0
.LBB1_2:                                # =>This Inner Loop Header: Depth=1
	fld.d	$fa1, $a2, 0
	fld.d	$fa2, $a1, 0
	fmadd.d	$fa1, $fa0, $fa2, $fa1
	fst.d	$fa1, $a2, 0
	addi.d	$a1, $a1, 8
	addi.d	$a2, $a2, 8
	addi.d	$a0, $a0, -1
	bnez	$a0, .LBB1_2
.LBB1_3:
	ret
.Lfunc_end1:
	.size	axpy_restrict, .Lfunc_end1-axpy_restrict
                                        # -- End function
	.globl	norm2                           # -- Begin function norm2
	.p2align	2
	.type	norm2,@function
norm2:                                  # @norm2
# %bb.0:
	movgr2fr.d	$fa0, $zero
	ori	$a2, $zero, 1
	blt	$a0, $a2, .LBB2_3
# %bb.1:
	bstrpick.d	$a0, $a0, 31, 0
.LBB2_2:                                # =>This Inner Loop Header: Depth=1
	fld.d	$fa1, $a1, 0
	fmadd.d	$fa0, $fa1, $fa1, $fa0
	addi.d	$a1, $a1, 8
	addi.d	$a0, $a0, -1
	bnez	$a0, .LBB2_2
.LBB2_3:
	ret
.Lfunc_end2:
	.size	norm2, .Lfunc_end2-norm2
                                        # -- End function
	.ident	"Debian clang version 16.0.6 (15~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.addrsig
