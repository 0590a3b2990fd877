; ModuleID = 'cminus'
source_filename = "gcd_array.cminus"

@x = global [1 x i32] zeroinitializer
@y = global [1 x i32] zeroinitializer
declare i32 @input()

declare void @output(i32)

declare void @outputFloat(float)

declare void @neg_idx_except()

define i32 @gcd(i32 %arg0, i32 %arg1) {
label_entry:
  %op2 = alloca i32
  store i32 %arg0, i32* %op2
  %op3 = alloca i32
  store i32 %arg1, i32* %op3
  %op4 = load i32, i32* %op3
  %op5 = icmp eq i32 %op4, 0
  %op6 = zext i1 %op5 to i32
  %op7 = icmp ne i32 %op6, 0
  br i1 %op7, label %label8, label %label10
label8:                                                ; preds = %label_entry
  %op9 = load i32, i32* %op2
  ret i32 %op9
label10:                                                ; preds = %label_entry
  %op11 = load i32, i32* %op3
  %op12 = load i32, i32* %op2
  %op13 = load i32, i32* %op2
  %op14 = load i32, i32* %op3
  %op15 = sdiv i32 %op13, %op14
  %op16 = load i32, i32* %op3
  %op17 = mul i32 %op15, %op16
  %op18 = sub i32 %op12, %op17
  %op19 = call i32 @gcd(i32 %op11, i32 %op18)
  ret i32 %op19
}
define i32 @funArray(i32* %arg0, i32* %arg1) {
label_entry:
  %op2 = alloca i32*
  store i32* %arg0, i32** %op2
  %op3 = alloca i32*
  store i32* %arg1, i32** %op3
  %op4 = alloca i32
  %op5 = alloca i32
  %op6 = alloca i32
  %op7 = load i32*, i32** %op2
  %op8 = getelementptr i32, i32* %op7, i32 0
  %op9 = load i32, i32* %op8
  store i32 %op9, i32* %op4
  %op10 = load i32*, i32** %op3
  %op11 = getelementptr i32, i32* %op10, i32 0
  %op12 = load i32, i32* %op11
  store i32 %op12, i32* %op5
  %op13 = load i32, i32* %op4
  %op14 = load i32, i32* %op5
  %op15 = icmp slt i32 %op13, %op14
  %op16 = zext i1 %op15 to i32
  %op17 = icmp ne i32 %op16, 0
  br i1 %op17, label %label18, label %label22
label18:                                                ; preds = %label_entry
  %op19 = load i32, i32* %op4
  store i32 %op19, i32* %op6
  %op20 = load i32, i32* %op5
  store i32 %op20, i32* %op4
  %op21 = load i32, i32* %op6
  store i32 %op21, i32* %op5
  br label %label22
label22:                                                ; preds = %label_entry, %label18
  %op23 = load i32, i32* %op4
  %op24 = load i32, i32* %op5
  %op25 = call i32 @gcd(i32 %op23, i32 %op24)
  ret i32 %op25
}
define i32 @main() {
label_entry:
  %op0 = call i32 @input()
  %op1 = getelementptr [1 x i32], [1 x i32]* @x, i32 0, i32 0
  store i32 %op0, i32* %op1
  %op2 = call i32 @input()
  %op3 = getelementptr [1 x i32], [1 x i32]* @y, i32 0, i32 0
  store i32 %op2, i32* %op3
  %op4 = getelementptr [1 x i32], [1 x i32]* @x, i32 0, i32 0
  %op5 = getelementptr [1 x i32], [1 x i32]* @y, i32 0, i32 0
  %op6 = call i32 @funArray(i32* %op4, i32* %op5)
  %op7 = sitofp i32 %op6 to float
  %op8 = fmul float %op7, 0x3ff0000000000000
  %op9 = fptosi float %op8 to i32
  call void @output(i32 %op9)
  ret i32 0
}
