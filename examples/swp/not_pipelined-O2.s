	.text
	.file	"not_pipelined.c"
	.globl	calls                           # -- Begin function calls
	.p2align	2
	.type	calls,@function
calls:                                  # @calls
# %bb.0:
	addi.d	$sp, $sp, -32
	st.d	$ra, $sp, 24                    # 8-byte Folded Spill
	st.d	$fp, $sp, 16                    # 8-byte Folded Spill
	st.d	$s0, $sp, 8                     # 8-byte Folded Spill
	move	$fp, $a1
	ori	$a1, $zero, 1
	blt	$a0, $a1, .LBB0_3
# %bb.1:
	bstrpick.d	$s0, $a0, 31, 0
.LBB0_2:                                # =>This Inner Loop Header: Depth=1
	fld.d	$fa0, $fp, 0
	bl	%plt(g)
	fst.d	$fa0, $fp, 0
	addi.d	$fp, $fp, 8
	addi.d	$s0, $s0, -1
	bnez	$s0, .LBB0_2
.LBB0_3:
	ld.d	$s0, $sp, 8                     # 8-byte Folded Reload
	ld.d	$fp, $sp, 16                    # 8-byte Folded Reload
	ld.d	$ra, $sp, 24                    # 8-byte Folded Reload
	addi.d	$sp, $sp, 32
	ret
.Lfunc_end0:
	.size	calls, .Lfunc_end0-calls
                                        # -- End function
	.globl	branches                        # -- Begin function branches
	.p2align	2
	.type	branches,@function
branches:                               # @branches
# %bb.0:
	ori	$a3, $zero, 1
	blt	$a0, $a3, .LBB1_5
# %bb.1:
	bstrpick.d	$a0, $a0, 31, 0
	b	.LBB1_3
.LBB1_2:                                #   in Loop: Header=BB1_3 Depth=1
	addi.d	$a1, $a1, 8
	addi.d	$a2, $a2, 8
	addi.d	$a0, $a0, -1
	beqz	$a0, .LBB1_5
.LBB1_3:                                # =>This Inner Loop Header: Depth=1
	ld.d	$a4, $a1, 0
	blt	$a4, $a3, .LBB1_2
# %bb.4:                                #   in Loop: Header=BB1_3 Depth=1
	st.d	$a4, $a2, 0
	b	.LBB1_2
.LBB1_5:
	ret
.Lfunc_end1:
	.size	branches, .Lfunc_end1-branches
                                        # -- End function
	.globl	search                          # -- Begin function search
	.p2align	2
	.type	search,@function
search:                                 # @search
# %bb.0:
	ori	$a3, $zero, 1
	blt	$a0, $a3, .LBB2_6
# %bb.1:
	bstrpick.d	$a4, $a0, 31, 0
	move	$a3, $zero
.LBB2_2:                                # =>This Inner Loop Header: Depth=1
	ld.d	$a5, $a1, 0
	beq	$a5, $a2, .LBB2_5
# %bb.3:                                #   in Loop: Header=BB2_2 Depth=1
	addi.d	$a1, $a1, 8
	addi.d	$a3, $a3, 1
	bne	$a4, $a3, .LBB2_2
# %bb.4:
	move	$a3, $a0
.LBB2_5:
	addi.w	$a0, $a3, 0
	ret
.LBB2_6:
	addi.w	$a0, $zero, 0
	ret
.Lfunc_end2:
	.size	search, .Lfunc_end2-search
                                        # -- End function
	.globl	crowded                         # -- Begin function crowded
	.p2align	2
	.type	crowded,@function
crowded:                                # @crowded
# %bb.0:
	addi.d	$sp, $sp, -64
	fst.d	$fs0, $sp, 56                   # 8-byte Folded Spill
	fst.d	$fs1, $sp, 48                   # 8-byte Folded Spill
	fst.d	$fs2, $sp, 40                   # 8-byte Folded Spill
	fst.d	$fs3, $sp, 32                   # 8-byte Folded Spill
	fst.d	$fs4, $sp, 24                   # 8-byte Folded Spill
	fst.d	$fs5, $sp, 16                   # 8-byte Folded Spill
	fst.d	$fs6, $sp, 8                    # 8-byte Folded Spill
	fst.d	$fs7, $sp, 0                    # 8-byte Folded Spill
	ori	$a4, $zero, 1
	blt	$a0, $a4, .LBB3_3
# %bb.1:
	fld.d	$fa0, $a3, 152
	fld.d	$fa1, $a3, 144
	fld.d	$fa2, $a3, 136
	fld.d	$fa3, $a3, 128
	fld.d	$fa4, $a3, 120
	fld.d	$fa5, $a3, 112
	fld.d	$fa6, $a3, 104
	fld.d	$fa7, $a3, 96
	fld.d	$ft0, $a3, 88
	fld.d	$ft1, $a3, 80
	fld.d	$ft2, $a3, 72
	fld.d	$ft3, $a3, 64
	fld.d	$ft4, $a3, 56
	fld.d	$ft5, $a3, 48
	fld.d	$ft6, $a3, 40
	fld.d	$ft7, $a3, 32
	fld.d	$ft8, $a3, 24
	fld.d	$ft9, $a3, 16
	fld.d	$ft10, $a3, 8
	fld.d	$ft11, $a3, 0
	movgr2fr.d	$ft12, $zero
	bstrpick.d	$a0, $a0, 31, 0
	fmov.d	$ft13, $ft12
	fmov.d	$ft14, $ft12
	fmov.d	$ft15, $ft12
	fmov.d	$fs0, $ft12
	fmov.d	$fs1, $ft12
	fmov.d	$fs2, $ft12
	fmov.d	$fs3, $ft12
	fmov.d	$fs4, $ft12
	fmov.d	$fs5, $ft12
.LBB3_2:                                # =>This Inner Loop Header: Depth=1
	fld.d	$fs6, $a1, 0
	fmul.d	$fs7, $fa0, $fs6
	fmadd.d	$ft13, $ft13, $ft2, $fs7
	fmul.d	$fs7, $fa1, $fs6
	fmadd.d	$ft14, $ft14, $ft3, $fs7
	fmul.d	$fs7, $fa2, $fs6
	fmadd.d	$ft15, $ft15, $ft4, $fs7
	fmul.d	$fs7, $fa3, $fs6
	fmadd.d	$fs0, $fs0, $ft5, $fs7
	fmul.d	$fs7, $fa4, $fs6
	fmadd.d	$fs1, $fs1, $ft6, $fs7
	fmul.d	$fs7, $fa5, $fs6
	fmadd.d	$fs2, $fs2, $ft7, $fs7
	fmul.d	$fs7, $fa6, $fs6
	fmadd.d	$fs3, $fs3, $ft8, $fs7
	fmul.d	$fs7, $fa7, $fs6
	fmadd.d	$fs4, $fs4, $ft9, $fs7
	fmul.d	$fs7, $ft0, $fs6
	fmadd.d	$fs5, $fs5, $ft10, $fs7
	fmul.d	$fs6, $ft1, $fs6
	fmadd.d	$ft12, $ft12, $ft11, $fs6
	fadd.d	$fs6, $ft12, $fs5
	fadd.d	$fs6, $fs4, $fs6
	fadd.d	$fs6, $fs3, $fs6
	fadd.d	$fs6, $fs2, $fs6
	fadd.d	$fs6, $fs1, $fs6
	fadd.d	$fs6, $fs0, $fs6
	fadd.d	$fs6, $ft15, $fs6
	fadd.d	$fs6, $ft14, $fs6
	fadd.d	$fs6, $ft13, $fs6
	fst.d	$fs6, $a2, 0
	addi.d	$a1, $a1, 8
	addi.d	$a2, $a2, 8
	addi.d	$a0, $a0, -1
	bnez	$a0, .LBB3_2
.LBB3_3:
	fld.d	$fs7, $sp, 0                    # 8-byte Folded Reload
	fld.d	$fs6, $sp, 8                    # 8-byte Folded Reload
	fld.d	$fs5, $sp, 16                   # 8-byte Folded Reload
	fld.d	$fs4, $sp, 24                   # 8-byte Folded Reload
	fld.d	$fs3, $sp, 32                   # 8-byte Folded Reload
	fld.d	$fs2, $sp, 40                   # 8-byte Folded Reload
	fld.d	$fs1, $sp, 48                   # 8-byte Folded Reload
	fld.d	$fs0, $sp, 56                   # 8-byte Folded Reload
	addi.d	$sp, $sp, 64
	ret
.Lfunc_end3:
	.size	crowded, .Lfunc_end3-crowded
                                        # -- End function
	.ident	"Debian clang version 16.0.6 (15~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.addrsig
