	.text
	.attribute	4, 16
	.attribute	5, "rv64i2p0_m2p0_a2p0_f2p0_d2p0_c2p0"
	.file	"kernels.c"
	.globl	saxpy                           # -- Begin function saxpy
	.p2align	1
	.type	saxpy,@function
saxpy:                                  # @saxpy
# %bb.0:
	blez	a0, .LBB0_3
# %bb.1:
	li	a3, 8
	andi	a6, a0, 7
	bgeu	a0, a3, .LBB0_4
# %bb.2:
	li	a0, 0
	bnez	a6, .LBB0_7
.LBB0_3:
	ret
.LBB0_4:
	andi	a3, a0, -8
	li	a0, 0
	neg	a4, a3
	addi	a5, a2, 32
	addi	a3, a1, 32
.LBB0_5:                                # =>This Inner Loop Header: Depth=1
	fld	ft0, -32(a3)
	fld	ft1, -32(a5)
	fld	ft2, -24(a3)
	fld	ft3, -24(a5)
	fld	ft4, -16(a3)
	fld	ft5, -16(a5)
	fld	ft6, -8(a3)
	fld	ft7, -8(a5)
	fld	fa1, 0(a3)
	fld	fa2, 0(a5)
	fmadd.d	ft0, fa0, ft0, ft1
	fld	ft1, 8(a3)
	fmadd.d	ft2, fa0, ft2, ft3
	fld	ft3, 8(a5)
	fmadd.d	ft4, fa0, ft4, ft5
	fld	ft5, 16(a3)
	fmadd.d	ft6, fa0, ft6, ft7
	fld	ft7, 16(a5)
	fmadd.d	fa1, fa0, fa1, fa2
	fld	fa2, 24(a3)
	fmadd.d	ft1, fa0, ft1, ft3
	fld	ft3, 24(a5)
	fmadd.d	ft5, fa0, ft5, ft7
	fsd	ft0, -32(a5)
	fmadd.d	ft0, fa0, fa2, ft3
	fsd	ft2, -24(a5)
	fsd	ft4, -16(a5)
	fsd	ft6, -8(a5)
	fsd	fa1, 0(a5)
	fsd	ft1, 8(a5)
	fsd	ft5, 16(a5)
	fsd	ft0, 24(a5)
	addi	a0, a0, -8
	addi	a5, a5, 64
	addi	a3, a3, 64
	bne	a4, a0, .LBB0_5
# %bb.6:
	neg	a0, a0
	beqz	a6, .LBB0_3
.LBB0_7:
	slli	a0, a0, 3
	add	a3, a1, a0
	add	a4, a2, a0
	fld	ft0, 0(a3)
	fld	ft1, 0(a4)
	fmadd.d	ft0, fa0, ft0, ft1
	li	a3, 1
	fsd	ft0, 0(a4)
	beq	a6, a3, .LBB0_3
# %bb.8:
	addi	a3, a0, 8
	add	a4, a1, a3
	add	a3, a3, a2
	fld	ft0, 0(a4)
	fld	ft1, 0(a3)
	fmadd.d	ft0, fa0, ft0, ft1
	li	a4, 2
	fsd	ft0, 0(a3)
	beq	a6, a4, .LBB0_3
# %bb.9:
	addi	a3, a0, 16
	add	a4, a1, a3
	add	a3, a3, a2
	fld	ft0, 0(a4)
	fld	ft1, 0(a3)
	fmadd.d	ft0, fa0, ft0, ft1
	li	a4, 3
	fsd	ft0, 0(a3)
	beq	a6, a4, .LBB0_3
# %bb.10:
	addi	a3, a0, 24
	add	a4, a1, a3
	add	a3, a3, a2
	fld	ft0, 0(a4)
	fld	ft1, 0(a3)
	fmadd.d	ft0, fa0, ft0, ft1
	li	a4, 4
	fsd	ft0, 0(a3)
	beq	a6, a4, .LBB0_3
# %bb.11:
	addi	a3, a0, 32
	add	a4, a1, a3
	add	a3, a3, a2
	fld	ft0, 0(a4)
	fld	ft1, 0(a3)
	fmadd.d	ft0, fa0, ft0, ft1
	li	a4, 5
	fsd	ft0, 0(a3)
	beq	a6, a4, .LBB0_3
# %bb.12:
	addi	a3, a0, 40
	add	a4, a1, a3
	add	a3, a3, a2
	fld	ft0, 0(a4)
	fld	ft1, 0(a3)
	fmadd.d	ft0, fa0, ft0, ft1
	li	a4, 6
	fsd	ft0, 0(a3)
	beq	a6, a4, .LBB0_3
# %bb.13:
	addi	a0, a0, 48
	add	a1, a1, a0
	add	a0, a0, a2
	fld	ft0, 0(a1)
	fld	ft1, 0(a0)
	fmadd.d	ft0, fa0, ft0, ft1
	fsd	ft0, 0(a0)
	ret
.Lfunc_end0:
	.size	saxpy, .Lfunc_end0-saxpy
                                        # -- End function
	.globl	dot                             # -- Begin function dot
	.p2align	1
	.type	dot,@function
dot:                                    # @dot
# %bb.0:
	blez	a0, .LBB1_4
# %bb.1:
	li	a3, 8
	andi	a6, a0, 7
	bgeu	a0, a3, .LBB1_5
# %bb.2:
	li	a0, 0
	fmv.d.x	fa0, zero
	bnez	a6, .LBB1_8
.LBB1_3:
	ret
.LBB1_4:
	fmv.d.x	fa0, zero
	ret
.LBB1_5:
	andi	a3, a0, -8
	li	a0, 0
	neg	a4, a3
	addi	a5, a2, 32
	addi	a3, a1, 32
	fmv.d.x	fa0, zero
.LBB1_6:                                # =>This Inner Loop Header: Depth=1
	fld	ft0, -32(a3)
	fld	ft1, -32(a5)
	fmadd.d	ft0, ft0, ft1, fa0
	fld	ft1, -24(a3)
	fld	ft2, -24(a5)
	fmadd.d	ft0, ft1, ft2, ft0
	fld	ft1, -16(a3)
	fld	ft2, -16(a5)
	fmadd.d	ft0, ft1, ft2, ft0
	fld	ft1, -8(a3)
	fld	ft2, -8(a5)
	fmadd.d	ft0, ft1, ft2, ft0
	fld	ft1, 0(a3)
	fld	ft2, 0(a5)
	fmadd.d	ft0, ft1, ft2, ft0
	fld	ft1, 8(a3)
	fld	ft2, 8(a5)
	fmadd.d	ft0, ft1, ft2, ft0
	fld	ft1, 16(a3)
	fld	ft2, 16(a5)
	fmadd.d	ft0, ft1, ft2, ft0
	fld	ft1, 24(a3)
	fld	ft2, 24(a5)
	fmadd.d	fa0, ft1, ft2, ft0
	addi	a0, a0, -8
	addi	a5, a5, 64
	addi	a3, a3, 64
	bne	a4, a0, .LBB1_6
# %bb.7:
	neg	a0, a0
	beqz	a6, .LBB1_3
.LBB1_8:
	slli	a0, a0, 3
	add	a3, a1, a0
	add	a4, a2, a0
	fld	ft0, 0(a3)
	fld	ft1, 0(a4)
	fmadd.d	fa0, ft0, ft1, fa0
	li	a3, 1
	beq	a6, a3, .LBB1_3
# %bb.9:
	addi	a3, a0, 8
	add	a4, a1, a3
	add	a3, a3, a2
	fld	ft0, 0(a4)
	fld	ft1, 0(a3)
	fmadd.d	fa0, ft0, ft1, fa0
	li	a3, 2
	beq	a6, a3, .LBB1_3
# %bb.10:
	addi	a3, a0, 16
	add	a4, a1, a3
	add	a3, a3, a2
	fld	ft0, 0(a4)
	fld	ft1, 0(a3)
	fmadd.d	fa0, ft0, ft1, fa0
	li	a3, 3
	beq	a6, a3, .LBB1_3
# %bb.11:
	addi	a3, a0, 24
	add	a4, a1, a3
	add	a3, a3, a2
	fld	ft0, 0(a4)
	fld	ft1, 0(a3)
	fmadd.d	fa0, ft0, ft1, fa0
	li	a3, 4
	beq	a6, a3, .LBB1_3
# %bb.12:
	addi	a3, a0, 32
	add	a4, a1, a3
	add	a3, a3, a2
	fld	ft0, 0(a4)
	fld	ft1, 0(a3)
	fmadd.d	fa0, ft0, ft1, fa0
	li	a3, 5
	beq	a6, a3, .LBB1_3
# %bb.13:
	addi	a3, a0, 40
	add	a4, a1, a3
	add	a3, a3, a2
	fld	ft0, 0(a4)
	fld	ft1, 0(a3)
	fmadd.d	fa0, ft0, ft1, fa0
	li	a3, 6
	beq	a6, a3, .LBB1_3
# %bb.14:
	addi	a0, a0, 48
	add	a1, a1, a0
	add	a0, a0, a2
	fld	ft0, 0(a1)
	fld	ft1, 0(a0)
	fmadd.d	fa0, ft0, ft1, fa0
	ret
.Lfunc_end1:
	.size	dot, .Lfunc_end1-dot
                                        # -- End function
	.globl	stencil                         # -- Begin function stencil
	.p2align	1
	.type	stencil,@function
stencil:                                # @stencil
# %bb.0:
	li	a3, 3
	blt	a0, a3, .LBB2_12
# %bb.1:
	addiw	a0, a0, -1
	slli	a0, a0, 32
	srli	a3, a0, 32
	addi	a0, a3, -1
	fld	ft1, 0(a1)
	addi	a4, a3, -2
	li	a5, 7
	andi	a6, a0, 7
	li	t0, 1
	fld	ft0, 8(a1)
	bltu	a4, a5, .LBB2_4
# %bb.2:
	andi	a0, a0, -8
	neg	a4, a0
	addi	a5, a2, 32
	addi	a0, a1, 40
	li	a7, 1
	li	t0, 1
.LBB2_3:                                # =>This Inner Loop Header: Depth=1
	fld	ft2, -24(a0)
	fmul.d	ft3, ft0, fa1
	fmul.d	ft4, ft2, fa1
	fmadd.d	ft3, fa0, ft1, ft3
	fld	ft5, -16(a0)
	fmadd.d	ft0, fa0, ft0, ft4
	fld	ft4, -8(a0)
	fmul.d	ft6, ft5, fa1
	fld	ft7, 0(a0)
	fmul.d	fa3, ft4, fa1
	fld	fa4, 8(a0)
	fmul.d	fa5, ft7, fa1
	fld	fa6, 16(a0)
	fmul.d	fa7, fa4, fa1
	fld	ft1, 24(a0)
	fmul.d	ft8, fa6, fa1
	fmul.d	ft9, ft1, fa1
	fmadd.d	ft3, fa2, ft2, ft3
	fmadd.d	ft2, fa0, ft2, ft6
	fmadd.d	ft6, fa0, ft5, fa3
	fmadd.d	fa3, fa0, ft4, fa5
	fmadd.d	fa5, fa0, ft7, fa7
	fmadd.d	fa7, fa0, fa4, ft8
	fmadd.d	ft8, fa0, fa6, ft9
	fmadd.d	ft5, fa2, ft5, ft0
	fmadd.d	ft2, fa2, ft4, ft2
	fmadd.d	ft4, fa2, ft7, ft6
	fmadd.d	ft6, fa2, fa4, fa3
	fmadd.d	ft7, fa2, fa6, fa5
	fld	ft0, 32(a0)
	fmadd.d	fa3, fa2, ft1, fa7
	fsd	ft3, -24(a5)
	fmadd.d	ft3, fa2, ft0, ft8
	fsd	ft5, -16(a5)
	fsd	ft2, -8(a5)
	fsd	ft4, 0(a5)
	fsd	ft6, 8(a5)
	addi	t0, t0, 8
	fsd	ft7, 16(a5)
	fsd	fa3, 24(a5)
	fsd	ft3, 32(a5)
	add	a3, a4, t0
	addi	a5, a5, 64
	addi	a0, a0, 64
	bne	a3, a7, .LBB2_3
.LBB2_4:
	beqz	a6, .LBB2_12
# %bb.5:
	fmul.d	ft2, ft0, fa1
	addi	a0, t0, 1
	slli	a0, a0, 3
	fmadd.d	ft2, fa0, ft1, ft2
	add	a4, a1, a0
	fld	ft1, 0(a4)
	fmadd.d	ft2, fa2, ft1, ft2
	slli	a7, t0, 3
	add	a5, a2, a7
	li	a4, 1
	fsd	ft2, 0(a5)
	beq	a6, a4, .LBB2_12
# %bb.6:
	fmul.d	ft2, ft1, fa1
	addi	a5, t0, 2
	slli	a5, a5, 3
	fmadd.d	ft2, fa0, ft0, ft2
	add	a4, a1, a5
	fld	ft0, 0(a4)
	fmadd.d	ft2, fa2, ft0, ft2
	add	a0, a0, a2
	li	a4, 2
	fsd	ft2, 0(a0)
	beq	a6, a4, .LBB2_12
# %bb.7:
	fmul.d	ft2, ft0, fa1
	addi	a0, t0, 3
	slli	a0, a0, 3
	fmadd.d	ft2, fa0, ft1, ft2
	add	a4, a1, a0
	fld	ft1, 0(a4)
	fmadd.d	ft2, fa2, ft1, ft2
	add	a5, a5, a2
	li	a4, 3
	fsd	ft2, 0(a5)
	beq	a6, a4, .LBB2_12
# %bb.8:
	fmul.d	ft2, ft1, fa1
	addi	a5, t0, 4
	slli	a5, a5, 3
	fmadd.d	ft2, fa0, ft0, ft2
	add	a4, a1, a5
	fld	ft0, 0(a4)
	fmadd.d	ft2, fa2, ft0, ft2
	add	a0, a0, a2
	li	a4, 4
	fsd	ft2, 0(a0)
	beq	a6, a4, .LBB2_12
# %bb.9:
	fmul.d	ft2, ft0, fa1
	addi	a0, t0, 5
	slli	a0, a0, 3
	fmadd.d	ft2, fa0, ft1, ft2
	add	a4, a1, a0
	fld	ft1, 0(a4)
	fmadd.d	ft2, fa2, ft1, ft2
	add	a5, a5, a2
	li	a4, 5
	fsd	ft2, 0(a5)
	beq	a6, a4, .LBB2_12
# %bb.10:
	fmul.d	ft2, ft1, fa1
	addi	a3, t0, 6
	slli	a3, a3, 3
	fmadd.d	ft2, fa0, ft0, ft2
	add	a4, a1, a3
	fld	ft0, 0(a4)
	fmadd.d	ft2, fa2, ft0, ft2
	add	a0, a0, a2
	li	a4, 6
	fsd	ft2, 0(a0)
	beq	a6, a4, .LBB2_12
# %bb.11:
	fmul.d	ft0, ft0, fa1
	fmadd.d	ft0, fa0, ft1, ft0
	add	a1, a1, a7
	fld	ft1, 56(a1)
	fmadd.d	ft0, fa2, ft1, ft0
	add	a2, a2, a3
	fsd	ft0, 0(a2)
.LBB2_12:
	ret
.Lfunc_end2:
	.size	stencil, .Lfunc_end2-stencil
                                        # -- End function
	.globl	fir                             # -- Begin function fir
	.p2align	1
	.type	fir,@function
fir:                                    # @fir
# %bb.0:
	addi	sp, sp, -112
	sd	ra, 104(sp)                     # 8-byte Folded Spill
	sd	s0, 96(sp)                      # 8-byte Folded Spill
	sd	s1, 88(sp)                      # 8-byte Folded Spill
	sd	s2, 80(sp)                      # 8-byte Folded Spill
	sd	s3, 72(sp)                      # 8-byte Folded Spill
	sd	s4, 64(sp)                      # 8-byte Folded Spill
	sd	s5, 56(sp)                      # 8-byte Folded Spill
	sd	s6, 48(sp)                      # 8-byte Folded Spill
	sd	s7, 40(sp)                      # 8-byte Folded Spill
	sd	s8, 32(sp)                      # 8-byte Folded Spill
	sd	s9, 24(sp)                      # 8-byte Folded Spill
	sd	s10, 16(sp)                     # 8-byte Folded Spill
	sd	s11, 8(sp)                      # 8-byte Folded Spill
	blez	a0, .LBB3_13
# %bb.1:
	ld	t5, 0(a1)
	ld	t1, 8(a1)
	li	t2, 8
	ld	t0, 16(a1)
	andi	s1, a0, 7
	bgeu	a0, t2, .LBB3_3
# %bb.2:
	li	a0, 0
	bnez	s1, .LBB3_6
	j	.LBB3_13
.LBB3_3:
	sd	s1, 0(sp)                       # 8-byte Folded Spill
	andi	a0, a0, -8
	li	t3, 0
	neg	t2, a0
	addi	t4, a1, 40
	addi	a0, a2, 32
.LBB3_4:                                # =>This Inner Loop Header: Depth=1
	mul	t5, t5, a3
	mul	t6, t1, a4
	mul	s2, t0, a5
	ld	s1, -16(t4)
	mul	t1, t1, a3
	mul	s3, t0, a4
	ld	s0, -8(t4)
	mul	s4, s1, a6
	add	t5, t5, t6
	mul	t6, s1, a5
	add	t1, t1, s3
	mul	s3, s0, a6
	mul	t0, t0, a3
	ld	s5, 0(t4)
	mul	s6, s1, a4
	add	t5, t5, s2
	mul	s2, s0, a5
	add	t1, t1, t6
	mul	t6, s5, a6
	mul	s7, s1, a3
	ld	s1, 8(t4)
	mul	s8, s0, a4
	add	t5, t5, s4
	mul	s4, s5, a5
	add	t1, t1, s3
	mul	s3, s1, a6
	mul	s9, s0, a3
	ld	s0, 16(t4)
	mul	s10, s5, a4
	sd	t5, -32(a0)
	mul	s11, s1, a5
	sd	t1, -24(a0)
	mul	ra, s0, a6
	mul	s5, s5, a3
	ld	t5, 24(t4)
	add	s6, s6, t0
	mul	a7, s1, a4
	add	t6, t6, s2
	mul	s2, s0, a5
	add	s7, s7, s8
	mul	s8, t5, a6
	mul	s1, s1, a3
	ld	t1, 32(t4)
	add	s3, s3, s4
	mul	s4, s0, a4
	add	s9, s9, s10
	mul	s10, t5, a5
	add	s11, s11, ra
	mul	ra, t1, a6
	mul	s0, s0, a3
	ld	t0, 40(t4)
	add	t6, t6, s6
	mul	s6, t5, a4
	add	s3, s3, s7
	mul	s7, t1, a5
	add	s9, s9, s11
	mul	s11, t0, a6
	add	a7, a7, s5
	add	s2, s2, s8
	add	s1, s1, s4
	add	s10, s10, ra
	add	s0, s0, s6
	add	s7, s7, s11
	sd	t6, -16(a0)
	add	a7, a7, s2
	sd	s3, -8(a0)
	add	s1, s1, s10
	sd	s9, 0(a0)
	add	s0, s0, s7
	sd	a7, 8(a0)
	sd	s1, 16(a0)
	sd	s0, 24(a0)
	addi	t3, t3, -8
	addi	t4, t4, 64
	addi	a0, a0, 64
	bne	t2, t3, .LBB3_4
# %bb.5:
	neg	a0, t3
	ld	s1, 0(sp)                       # 8-byte Folded Reload
	beqz	s1, .LBB3_13
.LBB3_6:
	slli	a0, a0, 3
	mul	t3, t5, a3
	mul	t4, t1, a4
	add	t2, a0, a1
	add	t3, t3, t4
	mul	a1, t0, a5
	ld	t4, 24(t2)
	add	t3, t3, a1
	mul	a1, t4, a6
	add	a1, a1, t3
	add	a2, a2, a0
	li	a0, 1
	sd	a1, 0(a2)
	beq	s1, a0, .LBB3_13
# %bb.7:
	mul	a0, t1, a3
	mul	a1, t0, a4
	add	a0, a0, a1
	mul	a1, t4, a5
	ld	t1, 32(t2)
	add	a0, a0, a1
	mul	a1, t1, a6
	add	a0, a0, a1
	li	a1, 2
	sd	a0, 8(a2)
	beq	s1, a1, .LBB3_13
# %bb.8:
	mul	t3, t0, a3
	ld	t0, 40(t2)
	mul	a1, t4, a4
	mul	t5, t1, a5
	mul	a0, t0, a6
	add	a1, a1, t3
	add	a0, a0, t5
	add	a0, a0, a1
	li	a1, 3
	sd	a0, 16(a2)
	beq	s1, a1, .LBB3_13
# %bb.9:
	mul	t4, t4, a3
	ld	t3, 48(t2)
	mul	a0, t1, a4
	mul	t5, t0, a5
	mul	a1, t3, a6
	add	a0, a0, t4
	add	a1, a1, t5
	add	a0, a0, a1
	li	a1, 4
	sd	a0, 24(a2)
	beq	s1, a1, .LBB3_13
# %bb.10:
	mul	t4, t1, a3
	ld	t1, 56(t2)
	mul	a1, t0, a4
	mul	t5, t3, a5
	mul	a0, t1, a6
	add	a1, a1, t4
	add	a0, a0, t5
	add	a0, a0, a1
	li	a1, 5
	sd	a0, 32(a2)
	beq	s1, a1, .LBB3_13
# %bb.11:
	mul	t4, t0, a3
	ld	t0, 64(t2)
	mul	a1, t3, a4
	mul	t5, t1, a5
	mul	a0, t0, a6
	add	a1, a1, t4
	add	a0, a0, t5
	add	a0, a0, a1
	li	a1, 6
	sd	a0, 40(a2)
	beq	s1, a1, .LBB3_13
# %bb.12:
	mul	a0, t3, a3
	ld	a1, 72(t2)
	mul	a3, t1, a4
	mul	a4, t0, a5
	mul	a1, a1, a6
	add	a0, a0, a3
	add	a1, a1, a4
	add	a0, a0, a1
	sd	a0, 48(a2)
.LBB3_13:
	ld	ra, 104(sp)                     # 8-byte Folded Reload
	ld	s0, 96(sp)                      # 8-byte Folded Reload
	ld	s1, 88(sp)                      # 8-byte Folded Reload
	ld	s2, 80(sp)                      # 8-byte Folded Reload
	ld	s3, 72(sp)                      # 8-byte Folded Reload
	ld	s4, 64(sp)                      # 8-byte Folded Reload
	ld	s5, 56(sp)                      # 8-byte Folded Reload
	ld	s6, 48(sp)                      # 8-byte Folded Reload
	ld	s7, 40(sp)                      # 8-byte Folded Reload
	ld	s8, 32(sp)                      # 8-byte Folded Reload
	ld	s9, 24(sp)                      # 8-byte Folded Reload
	ld	s10, 16(sp)                     # 8-byte Folded Reload
	ld	s11, 8(sp)                      # 8-byte Folded Reload
	addi	sp, sp, 112
	ret
.Lfunc_end3:
	.size	fir, .Lfunc_end3-fir
                                        # -- End function
	.globl	matvec_row                      # -- Begin function matvec_row
	.p2align	1
	.type	matvec_row,@function
matvec_row:                             # @matvec_row
# %bb.0:
	blez	a0, .LBB4_4
# %bb.1:
	li	a4, 8
	andi	a6, a0, 7
	bgeu	a0, a4, .LBB4_5
# %bb.2:
	li	a4, 0
	fmv.d.x	fa0, zero
	bnez	a6, .LBB4_8
.LBB4_3:
	ret
.LBB4_4:
	fmv.d.x	fa0, zero
	ret
.LBB4_5:
	mul	a4, a1, a0
	slli	a4, a4, 3
	andi	a5, a0, -8
	add	t1, a4, a2
	li	t0, 0
	neg	a7, a5
	addi	a4, a3, 32
	addi	a5, t1, 32
	fmv.d.x	fa0, zero
.LBB4_6:                                # =>This Inner Loop Header: Depth=1
	fld	ft0, -32(a5)
	fld	ft1, -32(a4)
	fmadd.d	ft0, ft0, ft1, fa0
	fld	ft1, -24(a5)
	fld	ft2, -24(a4)
	fmadd.d	ft0, ft1, ft2, ft0
	fld	ft1, -16(a5)
	fld	ft2, -16(a4)
	fmadd.d	ft0, ft1, ft2, ft0
	fld	ft1, -8(a5)
	fld	ft2, -8(a4)
	fmadd.d	ft0, ft1, ft2, ft0
	fld	ft1, 0(a5)
	fld	ft2, 0(a4)
	fmadd.d	ft0, ft1, ft2, ft0
	fld	ft1, 8(a5)
	fld	ft2, 8(a4)
	fmadd.d	ft0, ft1, ft2, ft0
	fld	ft1, 16(a5)
	fld	ft2, 16(a4)
	fmadd.d	ft0, ft1, ft2, ft0
	fld	ft1, 24(a5)
	fld	ft2, 24(a4)
	fmadd.d	fa0, ft1, ft2, ft0
	addi	t0, t0, -8
	addi	a4, a4, 64
	addi	a5, a5, 64
	bne	a7, t0, .LBB4_6
# %bb.7:
	neg	a4, t0
	beqz	a6, .LBB4_3
.LBB4_8:
	mul	a0, a1, a0
	slli	a0, a0, 3
	add	a2, a2, a0
	slli	a0, a4, 3
	add	a1, a2, a0
	add	a4, a3, a0
	fld	ft0, 0(a1)
	fld	ft1, 0(a4)
	fmadd.d	fa0, ft0, ft1, fa0
	li	a1, 1
	beq	a6, a1, .LBB4_3
# %bb.9:
	addi	a1, a0, 8
	add	a4, a2, a1
	add	a1, a1, a3
	fld	ft0, 0(a4)
	fld	ft1, 0(a1)
	fmadd.d	fa0, ft0, ft1, fa0
	li	a1, 2
	beq	a6, a1, .LBB4_3
# %bb.10:
	addi	a1, a0, 16
	add	a4, a2, a1
	add	a1, a1, a3
	fld	ft0, 0(a4)
	fld	ft1, 0(a1)
	fmadd.d	fa0, ft0, ft1, fa0
	li	a1, 3
	beq	a6, a1, .LBB4_3
# %bb.11:
	addi	a1, a0, 24
	add	a4, a2, a1
	add	a1, a1, a3
	fld	ft0, 0(a4)
	fld	ft1, 0(a1)
	fmadd.d	fa0, ft0, ft1, fa0
	li	a1, 4
	beq	a6, a1, .LBB4_3
# %bb.12:
	addi	a1, a0, 32
	add	a4, a2, a1
	add	a1, a1, a3
	fld	ft0, 0(a4)
	fld	ft1, 0(a1)
	fmadd.d	fa0, ft0, ft1, fa0
	li	a1, 5
	beq	a6, a1, .LBB4_3
# %bb.13:
	addi	a1, a0, 40
	add	a4, a2, a1
	add	a1, a1, a3
	fld	ft0, 0(a4)
	fld	ft1, 0(a1)
	fmadd.d	fa0, ft0, ft1, fa0
	li	a1, 6
	beq	a6, a1, .LBB4_3
# %bb.14:
	addi	a0, a0, 48
	add	a2, a2, a0
	add	a0, a0, a3
	fld	ft0, 0(a2)
	fld	ft1, 0(a0)
	fmadd.d	fa0, ft0, ft1, fa0
	ret
.Lfunc_end4:
	.size	matvec_row, .Lfunc_end4-matvec_row
                                        # -- End function
	.globl	horner                          # -- Begin function horner
	.p2align	1
	.type	horner,@function
horner:                                 # @horner
# %bb.0:
	blez	a0, .LBB5_3
# %bb.1:
	li	a3, 8
	andi	a6, a0, 7
	bgeu	a0, a3, .LBB5_4
# %bb.2:
	li	a0, 0
	bnez	a6, .LBB5_7
.LBB5_3:
	ret
.LBB5_4:
	andi	a3, a0, -8
	li	a0, 0
	neg	a4, a3
	addi	a5, a2, 32
	addi	a3, a1, 32
.LBB5_5:                                # =>This Inner Loop Header: Depth=1
	fld	ft0, -32(a3)
	fmadd.d	ft1, fa3, ft0, fa2
	fmadd.d	ft1, ft1, ft0, fa1
	fld	ft2, -24(a3)
	fmadd.d	ft0, ft1, ft0, fa0
	fld	ft1, -16(a3)
	fmadd.d	ft3, fa3, ft2, fa2
	fld	ft4, -8(a3)
	fmadd.d	ft5, fa3, ft1, fa2
	fld	ft6, 0(a3)
	fmadd.d	ft7, fa3, ft4, fa2
	fld	fa4, 8(a3)
	fmadd.d	fa5, fa3, ft6, fa2
	fld	fa6, 16(a3)
	fmadd.d	fa7, fa3, fa4, fa2
	fld	ft8, 24(a3)
	fmadd.d	ft9, fa3, fa6, fa2
	fmadd.d	ft10, fa3, ft8, fa2
	fmadd.d	ft3, ft3, ft2, fa1
	fmadd.d	ft5, ft5, ft1, fa1
	fmadd.d	ft7, ft7, ft4, fa1
	fmadd.d	fa5, fa5, ft6, fa1
	fmadd.d	fa7, fa7, fa4, fa1
	fmadd.d	ft9, ft9, fa6, fa1
	fmadd.d	ft10, ft10, ft8, fa1
	fmadd.d	ft2, ft3, ft2, fa0
	fmadd.d	ft1, ft5, ft1, fa0
	fmadd.d	ft3, ft7, ft4, fa0
	fmadd.d	ft4, fa5, ft6, fa0
	fmadd.d	ft5, fa7, fa4, fa0
	fmadd.d	ft6, ft9, fa6, fa0
	fsd	ft0, -32(a5)
	fmadd.d	ft0, ft10, ft8, fa0
	fsd	ft2, -24(a5)
	fsd	ft1, -16(a5)
	fsd	ft3, -8(a5)
	fsd	ft4, 0(a5)
	fsd	ft5, 8(a5)
	fsd	ft6, 16(a5)
	fsd	ft0, 24(a5)
	addi	a0, a0, -8
	addi	a5, a5, 64
	addi	a3, a3, 64
	bne	a4, a0, .LBB5_5
# %bb.6:
	neg	a0, a0
	beqz	a6, .LBB5_3
.LBB5_7:
	slli	a0, a0, 3
	add	a3, a1, a0
	fld	ft0, 0(a3)
	fmadd.d	ft1, fa3, ft0, fa2
	fmadd.d	ft1, ft1, ft0, fa1
	fmadd.d	ft0, ft1, ft0, fa0
	add	a3, a2, a0
	li	a4, 1
	fsd	ft0, 0(a3)
	beq	a6, a4, .LBB5_3
# %bb.8:
	addi	a3, a0, 8
	add	a4, a1, a3
	fld	ft0, 0(a4)
	fmadd.d	ft1, fa3, ft0, fa2
	fmadd.d	ft1, ft1, ft0, fa1
	fmadd.d	ft0, ft1, ft0, fa0
	add	a3, a3, a2
	li	a4, 2
	fsd	ft0, 0(a3)
	beq	a6, a4, .LBB5_3
# %bb.9:
	addi	a3, a0, 16
	add	a4, a1, a3
	fld	ft0, 0(a4)
	fmadd.d	ft1, fa3, ft0, fa2
	fmadd.d	ft1, ft1, ft0, fa1
	fmadd.d	ft0, ft1, ft0, fa0
	add	a3, a3, a2
	li	a4, 3
	fsd	ft0, 0(a3)
	beq	a6, a4, .LBB5_3
# %bb.10:
	addi	a3, a0, 24
	add	a4, a1, a3
	fld	ft0, 0(a4)
	fmadd.d	ft1, fa3, ft0, fa2
	fmadd.d	ft1, ft1, ft0, fa1
	fmadd.d	ft0, ft1, ft0, fa0
	add	a3, a3, a2
	li	a4, 4
	fsd	ft0, 0(a3)
	beq	a6, a4, .LBB5_3
# %bb.11:
	addi	a3, a0, 32
	add	a4, a1, a3
	fld	ft0, 0(a4)
	fmadd.d	ft1, fa3, ft0, fa2
	fmadd.d	ft1, ft1, ft0, fa1
	fmadd.d	ft0, ft1, ft0, fa0
	add	a3, a3, a2
	li	a4, 5
	fsd	ft0, 0(a3)
	beq	a6, a4, .LBB5_3
# %bb.12:
	addi	a3, a0, 40
	add	a4, a1, a3
	fld	ft0, 0(a4)
	fmadd.d	ft1, fa3, ft0, fa2
	fmadd.d	ft1, ft1, ft0, fa1
	fmadd.d	ft0, ft1, ft0, fa0
	add	a3, a3, a2
	li	a4, 6
	fsd	ft0, 0(a3)
	beq	a6, a4, .LBB5_3
# %bb.13:
	addi	a0, a0, 48
	add	a1, a1, a0
	fld	ft0, 0(a1)
	fmadd.d	ft1, fa3, ft0, fa2
	fmadd.d	ft1, ft1, ft0, fa1
	fmadd.d	ft0, ft1, ft0, fa0
	add	a0, a0, a2
	fsd	ft0, 0(a0)
	ret
.Lfunc_end5:
	.size	horner, .Lfunc_end5-horner
                                        # -- End function
	.globl	prefix_sum                      # -- Begin function prefix_sum
	.p2align	1
	.type	prefix_sum,@function
prefix_sum:                             # @prefix_sum
# %bb.0:
	blez	a0, .LBB6_3
# %bb.1:
	li	a3, 8
	andi	a6, a0, 7
	bgeu	a0, a3, .LBB6_4
# %bb.2:
	li	a0, 0
	li	t0, 0
	bnez	a6, .LBB6_7
.LBB6_3:
	ret
.LBB6_4:
	andi	a3, a0, -8
	li	a0, 0
	li	t0, 0
	neg	a7, a3
	addi	a5, a2, 32
	addi	a3, a1, 32
.LBB6_5:                                # =>This Inner Loop Header: Depth=1
	ld	a4, -32(a3)
	add	t0, t0, a4
	ld	a4, -24(a3)
	add	t1, a4, t0
	ld	a4, -16(a3)
	add	t2, a4, t1
	ld	a4, -8(a3)
	add	t3, a4, t2
	ld	a4, 0(a3)
	add	t4, a4, t3
	ld	a4, 8(a3)
	add	a4, a4, t4
	ld	t5, 16(a3)
	sd	t0, -32(a5)
	sd	t1, -24(a5)
	add	t5, t5, a4
	ld	t0, 24(a3)
	sd	t2, -16(a5)
	sd	t3, -8(a5)
	sd	t4, 0(a5)
	add	t0, t0, t5
	sd	a4, 8(a5)
	sd	t5, 16(a5)
	sd	t0, 24(a5)
	addi	a0, a0, -8
	addi	a5, a5, 64
	addi	a3, a3, 64
	bne	a7, a0, .LBB6_5
# %bb.6:
	neg	a0, a0
	beqz	a6, .LBB6_3
.LBB6_7:
	slli	a0, a0, 3
	add	a3, a1, a0
	ld	a3, 0(a3)
	add	a4, a3, t0
	add	a3, a2, a0
	li	a5, 1
	sd	a4, 0(a3)
	beq	a6, a5, .LBB6_3
# %bb.8:
	addi	a3, a0, 8
	add	a5, a1, a3
	ld	a5, 0(a5)
	add	a4, a4, a5
	add	a3, a3, a2
	li	a5, 2
	sd	a4, 0(a3)
	beq	a6, a5, .LBB6_3
# %bb.9:
	addi	a3, a0, 16
	add	a5, a1, a3
	ld	a5, 0(a5)
	add	a4, a4, a5
	add	a3, a3, a2
	li	a5, 3
	sd	a4, 0(a3)
	beq	a6, a5, .LBB6_3
# %bb.10:
	addi	a3, a0, 24
	add	a5, a1, a3
	ld	a5, 0(a5)
	add	a4, a4, a5
	add	a3, a3, a2
	li	a5, 4
	sd	a4, 0(a3)
	beq	a6, a5, .LBB6_3
# %bb.11:
	addi	a3, a0, 32
	add	a5, a1, a3
	ld	a5, 0(a5)
	add	a4, a4, a5
	add	a3, a3, a2
	li	a5, 5
	sd	a4, 0(a3)
	beq	a6, a5, .LBB6_3
# %bb.12:
	addi	a3, a0, 40
	add	a5, a1, a3
	ld	a5, 0(a5)
	add	a4, a4, a5
	add	a3, a3, a2
	li	a5, 6
	sd	a4, 0(a3)
	beq	a6, a5, .LBB6_3
# %bb.13:
	addi	a0, a0, 48
	add	a1, a1, a0
	ld	a1, 0(a1)
	add	a1, a1, a4
	add	a0, a0, a2
	sd	a1, 0(a0)
	ret
.Lfunc_end6:
	.size	prefix_sum, .Lfunc_end6-prefix_sum
                                        # -- End function
	.globl	div_reduce                      # -- Begin function div_reduce
	.p2align	1
	.type	div_reduce,@function
div_reduce:                             # @div_reduce
# %bb.0:
	blez	a0, .LBB7_4
# %bb.1:
	li	a3, 8
	andi	a6, a0, 7
	bgeu	a0, a3, .LBB7_5
# %bb.2:
	li	a0, 0
	fmv.d.x	fa0, zero
	bnez	a6, .LBB7_8
.LBB7_3:
	ret
.LBB7_4:
	fmv.d.x	fa0, zero
	ret
.LBB7_5:
	andi	a3, a0, -8
	li	a0, 0
	neg	a4, a3
	addi	a5, a2, 32
	addi	a3, a1, 32
	fmv.d.x	fa0, zero
.LBB7_6:                                # =>This Inner Loop Header: Depth=1
	fld	ft0, -32(a3)
	fld	ft1, -32(a5)
	fdiv.d	ft0, ft0, ft1
	fld	ft1, -24(a3)
	fld	ft2, -24(a5)
	fdiv.d	ft1, ft1, ft2
	fld	ft2, -16(a3)
	fld	ft3, -16(a5)
	fdiv.d	ft2, ft2, ft3
	fld	ft3, -8(a3)
	fld	ft4, -8(a5)
	fdiv.d	ft3, ft3, ft4
	fld	ft4, 0(a3)
	fld	ft5, 0(a5)
	fdiv.d	ft4, ft4, ft5
	fld	ft5, 8(a3)
	fld	ft6, 8(a5)
	fdiv.d	ft5, ft5, ft6
	fld	ft6, 16(a3)
	fld	ft7, 16(a5)
	fdiv.d	ft6, ft6, ft7
	fld	ft7, 24(a3)
	fld	fa1, 24(a5)
	fdiv.d	ft7, ft7, fa1
	fadd.d	ft0, fa0, ft0
	fadd.d	ft0, ft0, ft1
	fadd.d	ft0, ft0, ft2
	fadd.d	ft0, ft0, ft3
	fadd.d	ft0, ft0, ft4
	fadd.d	ft0, ft0, ft5
	fadd.d	ft0, ft0, ft6
	fadd.d	fa0, ft0, ft7
	addi	a0, a0, -8
	addi	a5, a5, 64
	addi	a3, a3, 64
	bne	a4, a0, .LBB7_6
# %bb.7:
	neg	a0, a0
	beqz	a6, .LBB7_3
.LBB7_8:
	slli	a0, a0, 3
	add	a3, a1, a0
	add	a4, a2, a0
	fld	ft0, 0(a3)
	fld	ft1, 0(a4)
	fdiv.d	ft0, ft0, ft1
	fadd.d	fa0, fa0, ft0
	li	a3, 1
	beq	a6, a3, .LBB7_3
# %bb.9:
	addi	a3, a0, 8
	add	a4, a1, a3
	add	a3, a3, a2
	fld	ft0, 0(a4)
	fld	ft1, 0(a3)
	fdiv.d	ft0, ft0, ft1
	fadd.d	fa0, fa0, ft0
	li	a3, 2
	beq	a6, a3, .LBB7_3
# %bb.10:
	addi	a3, a0, 16
	add	a4, a1, a3
	add	a3, a3, a2
	fld	ft0, 0(a4)
	fld	ft1, 0(a3)
	fdiv.d	ft0, ft0, ft1
	fadd.d	fa0, fa0, ft0
	li	a3, 3
	beq	a6, a3, .LBB7_3
# %bb.11:
	addi	a3, a0, 24
	add	a4, a1, a3
	add	a3, a3, a2
	fld	ft0, 0(a4)
	fld	ft1, 0(a3)
	fdiv.d	ft0, ft0, ft1
	fadd.d	fa0, fa0, ft0
	li	a3, 4
	beq	a6, a3, .LBB7_3
# %bb.12:
	addi	a3, a0, 32
	add	a4, a1, a3
	add	a3, a3, a2
	fld	ft0, 0(a4)
	fld	ft1, 0(a3)
	fdiv.d	ft0, ft0, ft1
	fadd.d	fa0, fa0, ft0
	li	a3, 5
	beq	a6, a3, .LBB7_3
# %bb.13:
	addi	a3, a0, 40
	add	a4, a1, a3
	add	a3, a3, a2
	fld	ft0, 0(a4)
	fld	ft1, 0(a3)
	fdiv.d	ft0, ft0, ft1
	fadd.d	fa0, fa0, ft0
	li	a3, 6
	beq	a6, a3, .LBB7_3
# %bb.14:
	addi	a0, a0, 48
	add	a1, a1, a0
	add	a0, a0, a2
	fld	ft0, 0(a1)
	fld	ft1, 0(a0)
	fdiv.d	ft0, ft0, ft1
	fadd.d	fa0, fa0, ft0
	ret
.Lfunc_end7:
	.size	div_reduce, .Lfunc_end7-div_reduce
                                        # -- End function
	.globl	clamp                           # -- Begin function clamp
	.p2align	1
	.type	clamp,@function
clamp:                                  # @clamp
# %bb.0:
	blez	a0, .LBB8_3
# %bb.1:
	li	a5, 8
	andi	a6, a0, 7
	bgeu	a0, a5, .LBB8_4
# %bb.2:
	li	a0, 0
	bnez	a6, .LBB8_7
.LBB8_3:
	ret
.LBB8_4:
	andi	a0, a0, -8
	li	t0, 0
	neg	a7, a0
	addi	t1, a2, 32
	addi	t2, a1, 32
.LBB8_5:                                # =>This Inner Loop Header: Depth=1
	ld	a5, -32(t2)
	ld	a0, -24(t2)
	blt	a3, a5, .LBB8_15
# %bb.14:                               #   in Loop: Header=BB8_5 Depth=1
	mv	a5, a3
.LBB8_15:                               #   in Loop: Header=BB8_5 Depth=1
	blt	a3, a0, .LBB8_17
# %bb.16:                               #   in Loop: Header=BB8_5 Depth=1
	mv	a0, a3
.LBB8_17:                               #   in Loop: Header=BB8_5 Depth=1
	blt	a5, a4, .LBB8_19
# %bb.18:                               #   in Loop: Header=BB8_5 Depth=1
	mv	a5, a4
.LBB8_19:                               #   in Loop: Header=BB8_5 Depth=1
	blt	a0, a4, .LBB8_21
# %bb.20:                               #   in Loop: Header=BB8_5 Depth=1
	mv	a0, a4
.LBB8_21:                               #   in Loop: Header=BB8_5 Depth=1
	sd	a5, -32(t1)
	sd	a0, -24(t1)
	ld	t3, -16(t2)
	ld	a5, -8(t2)
	ld	a0, 0(t2)
	blt	a3, t3, .LBB8_23
# %bb.22:                               #   in Loop: Header=BB8_5 Depth=1
	mv	t3, a3
.LBB8_23:                               #   in Loop: Header=BB8_5 Depth=1
	blt	a3, a5, .LBB8_25
# %bb.24:                               #   in Loop: Header=BB8_5 Depth=1
	mv	a5, a3
.LBB8_25:                               #   in Loop: Header=BB8_5 Depth=1
	blt	a3, a0, .LBB8_27
# %bb.26:                               #   in Loop: Header=BB8_5 Depth=1
	mv	a0, a3
.LBB8_27:                               #   in Loop: Header=BB8_5 Depth=1
	blt	t3, a4, .LBB8_29
# %bb.28:                               #   in Loop: Header=BB8_5 Depth=1
	mv	t3, a4
.LBB8_29:                               #   in Loop: Header=BB8_5 Depth=1
	blt	a5, a4, .LBB8_31
# %bb.30:                               #   in Loop: Header=BB8_5 Depth=1
	mv	a5, a4
.LBB8_31:                               #   in Loop: Header=BB8_5 Depth=1
	blt	a0, a4, .LBB8_33
# %bb.32:                               #   in Loop: Header=BB8_5 Depth=1
	mv	a0, a4
.LBB8_33:                               #   in Loop: Header=BB8_5 Depth=1
	sd	t3, -16(t1)
	sd	a5, -8(t1)
	sd	a0, 0(t1)
	ld	t3, 8(t2)
	ld	a5, 16(t2)
	ld	a0, 24(t2)
	blt	a3, t3, .LBB8_35
# %bb.34:                               #   in Loop: Header=BB8_5 Depth=1
	mv	t3, a3
.LBB8_35:                               #   in Loop: Header=BB8_5 Depth=1
	blt	a3, a5, .LBB8_37
# %bb.36:                               #   in Loop: Header=BB8_5 Depth=1
	mv	a5, a3
.LBB8_37:                               #   in Loop: Header=BB8_5 Depth=1
	blt	a3, a0, .LBB8_39
# %bb.38:                               #   in Loop: Header=BB8_5 Depth=1
	mv	a0, a3
.LBB8_39:                               #   in Loop: Header=BB8_5 Depth=1
	blt	t3, a4, .LBB8_41
# %bb.40:                               #   in Loop: Header=BB8_5 Depth=1
	mv	t3, a4
.LBB8_41:                               #   in Loop: Header=BB8_5 Depth=1
	blt	a5, a4, .LBB8_43
# %bb.42:                               #   in Loop: Header=BB8_5 Depth=1
	mv	a5, a4
.LBB8_43:                               #   in Loop: Header=BB8_5 Depth=1
	blt	a0, a4, .LBB8_45
# %bb.44:                               #   in Loop: Header=BB8_5 Depth=1
	mv	a0, a4
.LBB8_45:                               #   in Loop: Header=BB8_5 Depth=1
	sd	t3, 8(t1)
	sd	a5, 16(t1)
	sd	a0, 24(t1)
	addi	t0, t0, -8
	addi	t1, t1, 64
	addi	t2, t2, 64
	bne	a7, t0, .LBB8_5
# %bb.6:
	neg	a0, t0
	beqz	a6, .LBB8_3
.LBB8_7:
	slli	a7, a0, 3
	add	a5, a1, a7
	ld	a5, 0(a5)
	blt	a3, a5, .LBB8_47
# %bb.46:
	mv	a5, a3
.LBB8_47:
	blt	a5, a4, .LBB8_49
# %bb.48:
	mv	a5, a4
.LBB8_49:
	add	a0, a2, a7
	li	t0, 1
	sd	a5, 0(a0)
	beq	a6, t0, .LBB8_3
# %bb.8:
	addi	a0, a7, 8
	add	a5, a1, a0
	ld	a5, 0(a5)
	blt	a3, a5, .LBB8_51
# %bb.50:
	mv	a5, a3
.LBB8_51:
	blt	a5, a4, .LBB8_53
# %bb.52:
	mv	a5, a4
.LBB8_53:
	add	a0, a0, a2
	li	t0, 2
	sd	a5, 0(a0)
	beq	a6, t0, .LBB8_3
# %bb.9:
	addi	a0, a7, 16
	add	a5, a1, a0
	ld	a5, 0(a5)
	blt	a3, a5, .LBB8_55
# %bb.54:
	mv	a5, a3
.LBB8_55:
	blt	a5, a4, .LBB8_57
# %bb.56:
	mv	a5, a4
.LBB8_57:
	add	a0, a0, a2
	li	t0, 3
	sd	a5, 0(a0)
	beq	a6, t0, .LBB8_3
# %bb.10:
	addi	a0, a7, 24
	add	a5, a1, a0
	ld	a5, 0(a5)
	blt	a3, a5, .LBB8_59
# %bb.58:
	mv	a5, a3
.LBB8_59:
	blt	a5, a4, .LBB8_61
# %bb.60:
	mv	a5, a4
.LBB8_61:
	add	a0, a0, a2
	li	t0, 4
	sd	a5, 0(a0)
	beq	a6, t0, .LBB8_3
# %bb.11:
	addi	a0, a7, 32
	add	a5, a1, a0
	ld	a5, 0(a5)
	blt	a3, a5, .LBB8_63
# %bb.62:
	mv	a5, a3
.LBB8_63:
	blt	a5, a4, .LBB8_65
# %bb.64:
	mv	a5, a4
.LBB8_65:
	add	a0, a0, a2
	li	t0, 5
	sd	a5, 0(a0)
	beq	a6, t0, .LBB8_3
# %bb.12:
	addi	a0, a7, 40
	add	a5, a1, a0
	ld	a5, 0(a5)
	blt	a3, a5, .LBB8_67
# %bb.66:
	mv	a5, a3
.LBB8_67:
	blt	a5, a4, .LBB8_69
# %bb.68:
	mv	a5, a4
.LBB8_69:
	add	a0, a0, a2
	li	t0, 6
	sd	a5, 0(a0)
	beq	a6, t0, .LBB8_3
# %bb.13:
	addi	a0, a7, 48
	add	a1, a1, a0
	ld	a1, 0(a1)
	bge	a3, a1, .LBB8_71
# %bb.70:
	mv	a3, a1
.LBB8_71:
	bge	a3, a4, .LBB8_73
# %bb.72:
	mv	a4, a3
.LBB8_73:
	add	a0, a0, a2
	sd	a4, 0(a0)
	ret
.Lfunc_end8:
	.size	clamp, .Lfunc_end8-clamp
                                        # -- End function
	.ident	"Debian clang version 16.0.6 (15~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.addrsig
