	.text
	.file	"poly.c"
	.globl	poly                            # -- Begin function poly
	.p2align	2
	.type	poly,@function
poly:                                   # @poly
# %bb.0:
	addi.d	$sp, $sp, -64
	st.d	$ra, $sp, 56                    # 8-byte Folded Spill
	st.d	$fp, $sp, 48                    # 8-byte Folded Spill
	addi.d	$fp, $sp, 64
                                        # kill: def $r7 killed $r5
                                        # kill: def $r7 killed $r4
	st.w	$a0, $fp, -20
	st.w	$a1, $fp, -24
	st.d	$a2, $fp, -32
	ld.w	$a0, $fp, -20
	mul.d	$a0, $a0, $a0
	st.w	$a0, $fp, -36
	ld.w	$a0, $fp, -24
	alsl.d	$a0, $a0, $a0, 1
	st.w	$a0, $fp, -40
	ld.d	$a1, $fp, -32
	ld.w	$a0, $a1, 0
	ld.w	$a1, $a1, 4
	add.d	$a0, $a0, $a1
	st.w	$a0, $fp, -44
	ld.w	$a0, $fp, -36
	ld.w	$a1, $fp, -40
	add.d	$a0, $a0, $a1
	ld.w	$a1, $fp, -44
	mul.d	$a0, $a0, $a1
	st.w	$a0, $fp, -48
	ld.d	$a0, $fp, -32
	ld.w	$a0, $a0, 8
	ld.w	$a1, $fp, -20
	sub.d	$a0, $a0, $a1
	st.w	$a0, $fp, -52
	ld.w	$a0, $fp, -48
	ld.w	$a1, $fp, -52
	ld.w	$a2, $fp, -24
	mul.d	$a1, $a1, $a2
	add.w	$a0, $a0, $a1
	ld.d	$fp, $sp, 48                    # 8-byte Folded Reload
	ld.d	$ra, $sp, 56                    # 8-byte Folded Reload
	addi.d	$sp, $sp, 64
	ret
.Lfunc_end0:
	.size	poly, .Lfunc_end0-poly
                                        # -- End function
	.ident	"Debian clang version 16.0.6 (15~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.addrsig
