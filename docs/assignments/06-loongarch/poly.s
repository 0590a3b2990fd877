	.text
	.file	"poly.c"
	.globl	poly                            # -- Begin function poly
	.p2align	2
	.type	poly,@function
poly:                                   # @poly
# %bb.0:
	mul.d	$a3, $a0, $a0
	alsl.d	$a4, $a1, $a1, 1
	add.d	$a3, $a4, $a3
	ld.w	$a4, $a2, 0
	ld.w	$a5, $a2, 4
	add.d	$a4, $a5, $a4
	mul.d	$a3, $a4, $a3
	ld.w	$a2, $a2, 8
	sub.d	$a0, $a2, $a0
	mul.d	$a0, $a0, $a1
	add.w	$a0, $a0, $a3
	ret
.Lfunc_end0:
	.size	poly, .Lfunc_end0-poly
                                        # -- End function
	.ident	"Debian clang version 16.0.6 (15~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.addrsig
