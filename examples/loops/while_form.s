# While loops as a compiler that does not rotate loops writes them in LoongArch
# assembly (a course compiler's back end after register allocation): the test at
# the top of the loop, an unconditional jump back from the end of the body, an
# int counter read through its sign extension (addi.w r, i, 0). --pipeline
# rotates each loop (the header becomes the guard, the body tests at its end),
# if-converts a body with an if to one block, and pipelines it.
# examples/loops/while_form.ir and while_form.ll are the same loops.
	.text
# void saxpy(int n, float a, float *x, float *y):
#     i = 0; while (i < n) { y[i] = a * x[i] + y[i]; i = i + 1; }
saxpy:
	move	$t0, $zero
.saxpy_cond:
	addi.w	$t1, $t0, 0
	bge	$t1, $a0, .saxpy_exit
.saxpy_body:
	slli.d	$t2, $t1, 2
	fldx.s	$ft0, $a1, $t2
	fldx.s	$ft1, $a2, $t2
	fmadd.s	$ft1, $fa0, $ft0, $ft1
	fstx.s	$ft1, $a2, $t2
	addi.d	$t0, $t0, 1
	b	.saxpy_cond
.saxpy_exit:
	ret
# void relu(int n, int *x):
#     i = 0; while (i < n) { if (x[i] < 0) x[i] = 0; i = i + 1; }
relu:
	move	$t0, $zero
.relu_cond:
	addi.w	$t1, $t0, 0
	bge	$t1, $a0, .relu_exit
.relu_body:
	slli.d	$t2, $t1, 2
	ldx.w	$t3, $a1, $t2
	bge	$t3, $zero, .relu_next
.relu_then:
	stx.w	$zero, $a1, $t2
.relu_next:
	addi.d	$t0, $t0, 1
	b	.relu_cond
.relu_exit:
	ret
# int sumif(int n, int *x, int t):
#     i = n; s = 0;
#     while (i > 0) { i = i - 1; if (x[i] > t) s = s + x[i]; else s = s - 1; }
#     return s;
sumif:
	move	$t0, $a0
	move	$t4, $zero
.sumif_cond:
	addi.w	$t1, $t0, 0
	bge	$zero, $t1, .sumif_exit
.sumif_body:
	addi.d	$t0, $t0, -1
	addi.w	$t1, $t0, 0
	slli.d	$t2, $t1, 2
	ldx.w	$t3, $a1, $t2
	bge	$a2, $t3, .sumif_else
.sumif_then:
	add.w	$t4, $t4, $t3
	b	.sumif_cond
.sumif_else:
	addi.w	$t4, $t4, -1
	b	.sumif_cond
.sumif_exit:
	move	$a0, $t4
	ret
