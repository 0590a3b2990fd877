; While loops in LightIR's style (the course's LLVM-IR subset, as a compiler that
; does not rotate loops writes it after mem2reg: typed pointers, labels label_*,
; the test at the top of the loop, an unconditional jump back from the body).
; --pipeline rotates each loop, if-converts a body with an if to one block, and
; pipelines it. examples/loops/while_form.s is the same loops in assembly.

; void saxpy(int n, float a, float *x, float *y):
;     i = 0; while (i < n) { y[i] = a * x[i] + y[i]; i = i + 1; }
define void @saxpy(i32 %arg0, float %arg1, float* %arg2, float* %arg3) {
label_entry:
  br label %label_cond
label_cond:
  %op4 = phi i32 [ 0, %label_entry ], [ %op13, %label_body ]
  %op5 = icmp slt i32 %op4, %arg0
  br i1 %op5, label %label_body, label %label_exit
label_body:
  %op6 = sext i32 %op4 to i64
  %op7 = getelementptr float, float* %arg2, i64 %op6
  %op8 = load float, float* %op7
  %op9 = getelementptr float, float* %arg3, i64 %op6
  %op10 = load float, float* %op9
  %op11 = fmul float %arg1, %op8
  %op12 = fadd float %op11, %op10
  store float %op12, float* %op9
  %op13 = add i32 %op4, 1
  br label %label_cond
label_exit:
  ret void
}

; void relu(int n, int *x):
;     i = 0; while (i < n) { if (x[i] < 0) x[i] = 0; i = i + 1; }
define void @relu(i32 %arg0, i32* %arg1) {
label_entry:
  br label %label_cond
label_cond:
  %op2 = phi i32 [ 0, %label_entry ], [ %op8, %label_next ]
  %op3 = icmp slt i32 %op2, %arg0
  br i1 %op3, label %label_body, label %label_exit
label_body:
  %op4 = sext i32 %op2 to i64
  %op5 = getelementptr i32, i32* %arg1, i64 %op4
  %op6 = load i32, i32* %op5
  %op7 = icmp slt i32 %op6, 0
  br i1 %op7, label %label_then, label %label_next
label_then:
  store i32 0, i32* %op5
  br label %label_next
label_next:
  %op8 = add i32 %op2, 1
  br label %label_cond
label_exit:
  ret void
}

; int sumif(int n, int *x, int t):
;     i = n; s = 0;
;     while (i > 0) { i = i - 1; if (x[i] > t) s = s + x[i]; else s = s - 1; }
;     return s;
define i32 @sumif(i32 %arg0, i32* %arg1, i32 %arg2) {
label_entry:
  br label %label_cond
label_cond:
  %op3 = phi i32 [ %arg0, %label_entry ], [ %op6, %label_next ]
  %op4 = phi i32 [ 0, %label_entry ], [ %op13, %label_next ]
  %op5 = icmp sgt i32 %op3, 0
  br i1 %op5, label %label_body, label %label_exit
label_body:
  %op6 = sub i32 %op3, 1
  %op7 = sext i32 %op6 to i64
  %op8 = getelementptr i32, i32* %arg1, i64 %op7
  %op9 = load i32, i32* %op8
  %op10 = icmp sgt i32 %op9, %arg2
  br i1 %op10, label %label_then, label %label_else
label_then:
  %op11 = add i32 %op4, %op9
  br label %label_next
label_else:
  %op12 = sub i32 %op4, 1
  br label %label_next
label_next:
  %op13 = phi i32 [ %op11, %label_then ], [ %op12, %label_else ]
  br label %label_cond
label_exit:
  ret i32 %op4
}
