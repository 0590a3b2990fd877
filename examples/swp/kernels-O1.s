	.text
	.file	"kernels.c"
	.globl	saxpy                           # -- Begin function saxpy
	.p2align	2
	.type	saxpy,@function
saxpy:                                  # @saxpy
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
	.size	saxpy, .Lfunc_end0-saxpy
                                        # -- End function
	.globl	dot                             # -- Begin function dot
	.p2align	2
	.type	dot,@function
dot:                                    # @dot
# %bb.0:
	movgr2fr.d	$fa0, $zero
	ori	$a3, $zero, 1
	blt	$a0, $a3, .LBB1_3
# %bb.1:
	bstrpick.d	$a0, $a0, 31, 0
.LBB1_2:                                # =>This Inner Loop Header: Depth=1
	fld.d	$fa1, $a2, 0
	fld.d	$fa2, $a1, 0
	fmadd.d	$fa0, $fa2, $fa1, $fa0
	addi.d	$a1, $a1, 8
	addi.d	$a2, $a2, 8
	addi.d	$a0, $a0, -1
	bnez	$a0, .LBB1_2
.LBB1_3:
	ret
.Lfunc_end1:
	.size	dot, .Lfunc_end1-dot
                                        # -- End function
	.globl	stencil                         # -- Begin function stencil
	.p2align	2
	.type	stencil,@function
stencil:                                # @stencil
# %bb.0:
	ori	$a3, $zero, 3
	blt	$a0, $a3, .LBB2_3
# %bb.1:
	addi.d	$a2, $a2, 8
	addi.d	$a1, $a1, 16
	addi.d	$a0, $a0, -1
	bstrpick.d	$a0, $a0, 31, 0
	addi.d	$a0, $a0, -1
.LBB2_2:                                # =>This Inner Loop Header: Depth=1
	fld.d	$fa3, $a1, -8
	fmul.d	$fa3, $fa3, $fa1
	fld.d	$fa4, $a1, -16
	fmadd.d	$fa3, $fa0, $fa4, $fa3
	fld.d	$fa4, $a1, 0
	fmadd.d	$fa3, $fa2, $fa4, $fa3
	fst.d	$fa3, $a2, 0
	addi.d	$a2, $a2, 8
	addi.d	$a1, $a1, 8
	addi.d	$a0, $a0, -1
	bnez	$a0, .LBB2_2
.LBB2_3:
	ret
.Lfunc_end2:
	.size	stencil, .Lfunc_end2-stencil
                                        # -- End function
	.globl	fir                             # -- Begin function fir
	.p2align	2
	.type	fir,@function
fir:                                    # @fir
# %bb.0:
	ori	$a7, $zero, 1
	blt	$a0, $a7, .LBB3_3
# %bb.1:
	addi.d	$a1, $a1, 16
	bstrpick.d	$a0, $a0, 31, 0
.LBB3_2:                                # =>This Inner Loop Header: Depth=1
	ld.d	$a7, $a1, -16
	mul.d	$a7, $a7, $a3
	ld.d	$t0, $a1, -8
	mul.d	$t0, $t0, $a4
	add.d	$a7, $t0, $a7
	ld.d	$t0, $a1, 0
	mul.d	$t0, $t0, $a5
	add.d	$a7, $a7, $t0
	ld.d	$t0, $a1, 8
	mul.d	$t0, $t0, $a6
	add.d	$a7, $a7, $t0
	st.d	$a7, $a2, 0
	addi.d	$a2, $a2, 8
	addi.d	$a1, $a1, 8
	addi.d	$a0, $a0, -1
	bnez	$a0, .LBB3_2
.LBB3_3:
	ret
.Lfunc_end3:
	.size	fir, .Lfunc_end3-fir
                                        # -- End function
	.globl	matvec_row                      # -- Begin function matvec_row
	.p2align	2
	.type	matvec_row,@function
matvec_row:                             # @matvec_row
# %bb.0:
	ori	$a4, $zero, 1
	blt	$a0, $a4, .LBB4_4
# %bb.1:
	mul.d	$a1, $a1, $a0
	alsl.d	$a1, $a1, $a2, 3
	movgr2fr.d	$fa0, $zero
	bstrpick.d	$a0, $a0, 31, 0
.LBB4_2:                                # =>This Inner Loop Header: Depth=1
	fld.d	$fa1, $a3, 0
	fld.d	$fa2, $a1, 0
	fmadd.d	$fa0, $fa2, $fa1, $fa0
	addi.d	$a1, $a1, 8
	addi.d	$a3, $a3, 8
	addi.d	$a0, $a0, -1
	bnez	$a0, .LBB4_2
# %bb.3:
	ret
.LBB4_4:
	movgr2fr.d	$fa0, $zero
	ret
.Lfunc_end4:
	.size	matvec_row, .Lfunc_end4-matvec_row
                                        # -- End function
	.globl	horner                          # -- Begin function horner
	.p2align	2
	.type	horner,@function
horner:                                 # @horner
# %bb.0:
	ori	$a3, $zero, 1
	blt	$a0, $a3, .LBB5_3
# %bb.1:
	bstrpick.d	$a0, $a0, 31, 0
.LBB5_2:                                # =>This Inner Loop Header: Depth=1
	fld.d	$fa4, $a1, 0
	fmadd.d	$fa5, $fa3, $fa4, $fa2
	fmadd.d	$fa5, $fa5, $fa4, $fa1
	fmadd.d	$fa4, $fa5, $fa4, $fa0
	fst.d	$fa4, $a2, 0
	addi.d	$a1, $a1, 8
	addi.d	$a2, $a2, 8
	addi.d	$a0, $a0, -1
	bnez	$a0, .LBB5_2
.LBB5_3:
	ret
.Lfunc_end5:
	.size	horner, .Lfunc_end5-horner
                                        # -- End function
	.globl	prefix_sum                      # -- Begin function prefix_sum
	.p2align	2
	.type	prefix_sum,@function
prefix_sum:                             # @prefix_sum
# %bb.0:
	ori	$a3, $zero, 1
	blt	$a0, $a3, .LBB6_3
# %bb.1:
	bstrpick.d	$a0, $a0, 31, 0
	move	$a3, $zero
.LBB6_2:                                # =>This Inner Loop Header: Depth=1
	ld.d	$a4, $a1, 0
	add.d	$a3, $a4, $a3
	addi.d	$a1, $a1, 8
	st.d	$a3, $a2, 0
	addi.d	$a2, $a2, 8
	addi.d	$a0, $a0, -1
	bnez	$a0, .LBB6_2
.LBB6_3:
	ret
.Lfunc_end6:
	.size	prefix_sum, .Lfunc_end6-prefix_sum
                                        # -- End function
	.globl	div_reduce                      # -- Begin function div_reduce
	.p2align	2
	.type	div_reduce,@function
div_reduce:                             # @div_reduce
# %bb.0:
	movgr2fr.d	$fa0, $zero
	ori	$a3, $zero, 1
	blt	$a0, $a3, .LBB7_3
# %bb.1:
	bstrpick.d	$a0, $a0, 31, 0
.LBB7_2:                                # =>This Inner Loop Header: Depth=1
	fld.d	$fa1, $a2, 0
	fld.d	$fa2, $a1, 0
	fdiv.d	$fa1, $fa2, $fa1
	fadd.d	$fa0, $fa0, $fa1
	addi.d	$a1, $a1, 8
	addi.d	$a2, $a2, 8
	addi.d	$a0, $a0, -1
	bnez	$a0, .LBB7_2
.LBB7_3:
	ret
.Lfunc_end7:
	.size	div_reduce, .Lfunc_end7-div_reduce
                                        # -- End function
	.globl	clamp                           # -- Begin function clamp
	.p2align	2
	.type	clamp,@function
clamp:                                  # @clamp
# %bb.0:
	ori	$a5, $zero, 1
	blt	$a0, $a5, .LBB8_3
# %bb.1:
	bstrpick.d	$a0, $a0, 31, 0
.LBB8_2:                                # =>This Inner Loop Header: Depth=1
	ld.d	$a5, $a1, 0
	slt	$a6, $a3, $a5
	masknez	$a7, $a3, $a6
	maskeqz	$a5, $a5, $a6
	or	$a5, $a5, $a7
	slt	$a6, $a5, $a4
	maskeqz	$a5, $a5, $a6
	masknez	$a6, $a4, $a6
	or	$a5, $a5, $a6
	st.d	$a5, $a2, 0
	addi.d	$a1, $a1, 8
	addi.d	$a2, $a2, 8
	addi.d	$a0, $a0, -1
	bnez	$a0, .LBB8_2
.LBB8_3:
	ret
.Lfunc_end8:
	.size	clamp, .Lfunc_end8-clamp
                                        # -- End function
	.ident	"Debian clang version 16.0.6 (15~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.addrsig
