	.file	"t.c"
	.text
	.align	2
	.globl	f
	.type	f, @function
f:
.LFB0 = .
	.cfi_startproc
	addi.d	$r3,$r3,-32
	.cfi_def_cfa_offset 32
	st.d	$r22,$r3,24
	.cfi_offset 22, -8
	addi.d	$r22,$r3,32
	.cfi_def_cfa 22, 0
	or	$r12,$r4,$r0
	slli.w	$r12,$r12,0
	st.w	$r12,$r22,-20
	ldptr.w	$r12,$r22,-20
	addi.w	$r13,$r12,1
	ld.w	$r14,$r22,-24
	mul.w	$r12,$r13,$r14
	or	$r4,$r12,$r0
	ld.d	$r22,$r3,24
	.cfi_restore 22
	addi.d	$r3,$r3,32
	.cfi_def_cfa_register 3
	jr	$r1
	.cfi_endproc
.LFE0:
	.size	f, .-f
	.globl main
	.type main, @function
main:
	st.d $ra, $sp, -8
	st.d $fp, $sp, -16
	addi.d $fp, $sp, 0
	addi.d $sp, $sp, -32
.main_label_entry:
	addi.w $t0, $zero, 5
	st.w $t0, $fp, -20
	ld.w $t1, $fp, -20
	lu12i.w $t2, 0x40000
	addi.w $t3, $t1, 3
	mul.w $t4, $t3, $t3
	st.w $t4, $fp, -24
	ld.w $a0, $fp, -24
	b .main_label_exit
.main_label_exit:
	addi.d $sp, $sp, 32
	ld.d $ra, $sp, -8
	ld.d $fp, $sp, -16
	jr $ra
