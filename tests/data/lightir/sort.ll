; ModuleID = 'cminus'
source_filename = "sort.cminus"

declare i32 @input()

declare void @output(i32)

declare void @outputFloat(float)

declare void @neg_idx_except()

define void @main() {
label_entry:
  %op0 = alloca [8 x i32]
  %op1 = alloca i32
  %op2 = alloca i32
  %op3 = alloca i32
  store i32 0, i32* %op1
  br label %label_fill
label_fill:
  %op4 = load i32, i32* %op1
  %op5 = icmp slt i32 %op4, 8
  br i1 %op5, label %label_fill_body, label %label_sort
label_fill_body:
  %op6 = call i32 @input()
  %op7 = load i32, i32* %op1
  %op8 = mul i32 %op7, 13
  %op9 = add i32 %op6, %op8
  %op10 = srem i32 %op9, 50
  %op11 = getelementptr [8 x i32], [8 x i32]* %op0, i32 0, i32 %op7
  store i32 %op10, i32* %op11
  %op12 = add i32 %op7, 1
  store i32 %op12, i32* %op1
  br label %label_fill
label_sort:
  store i32 0, i32* %op1
  br label %label_outer
label_outer:
  %op13 = load i32, i32* %op1
  %op14 = icmp slt i32 %op13, 8
  br i1 %op14, label %label_outer_body, label %label_print
label_outer_body:
  store i32 0, i32* %op2
  br label %label_inner
label_inner:
  %op15 = load i32, i32* %op2
  %op16 = icmp slt i32 %op15, 7
  br i1 %op16, label %label_inner_body, label %label_outer_next
label_inner_body:
  %op17 = load i32, i32* %op2
  %op18 = getelementptr [8 x i32], [8 x i32]* %op0, i32 0, i32 %op17
  %op19 = load i32, i32* %op18
  %op20 = add i32 %op17, 1
  %op21 = getelementptr [8 x i32], [8 x i32]* %op0, i32 0, i32 %op20
  %op22 = load i32, i32* %op21
  %op23 = icmp sgt i32 %op19, %op22
  br i1 %op23, label %label_swap, label %label_inner_next
label_swap:
  %op24 = load i32, i32* %op2
  %op25 = getelementptr [8 x i32], [8 x i32]* %op0, i32 0, i32 %op24
  %op26 = load i32, i32* %op25
  store i32 %op26, i32* %op3
  %op27 = add i32 %op24, 1
  %op28 = getelementptr [8 x i32], [8 x i32]* %op0, i32 0, i32 %op27
  %op29 = load i32, i32* %op28
  store i32 %op29, i32* %op25
  %op30 = load i32, i32* %op3
  store i32 %op30, i32* %op28
  br label %label_inner_next
label_inner_next:
  %op31 = load i32, i32* %op2
  %op32 = add i32 %op31, 1
  store i32 %op32, i32* %op2
  br label %label_inner
label_outer_next:
  %op33 = load i32, i32* %op1
  %op34 = add i32 %op33, 1
  store i32 %op34, i32* %op1
  br label %label_outer
label_print:
  store i32 0, i32* %op1
  br label %label_p
label_p:
  %op35 = load i32, i32* %op1
  %op36 = icmp slt i32 %op35, 8
  br i1 %op36, label %label_p_body, label %label_end
label_p_body:
  %op37 = getelementptr [8 x i32], [8 x i32]* %op0, i32 0, i32 %op35
  %op38 = load i32, i32* %op37
  call void @output(i32 %op38)
  %op39 = sitofp i32 %op38 to float
  %op40 = fdiv float %op39, 0x4000000000000000
  call void @outputFloat(float %op40)
  %op41 = add i32 %op35, 1
  store i32 %op41, i32* %op1
  br label %label_p
label_end:
  ret void
}
