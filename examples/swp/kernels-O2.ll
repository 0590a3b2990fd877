; ModuleID = 'kernels.c'
source_filename = "kernels.c"
target datalayout = "e-m:e-p:64:64-i64:64-i128:128-n64-S128"
target triple = "loongarch64-unknown-linux-gnu"

; Function Attrs: nofree nosync nounwind memory(argmem: readwrite)
define dso_local void @saxpy(i32 noundef signext %0, double noundef %1, ptr noalias nocapture noundef readonly %2, ptr noalias nocapture noundef %3) local_unnamed_addr #0 {
  %5 = icmp sgt i32 %0, 0
  br i1 %5, label %6, label %8

6:                                                ; preds = %4
  %7 = zext i32 %0 to i64
  br label %9

8:                                                ; preds = %9, %4
  ret void

9:                                                ; preds = %6, %9
  %10 = phi i64 [ 0, %6 ], [ %16, %9 ]
  %11 = getelementptr inbounds double, ptr %2, i64 %10
  %12 = load double, ptr %11, align 8, !tbaa !4
  %13 = getelementptr inbounds double, ptr %3, i64 %10
  %14 = load double, ptr %13, align 8, !tbaa !4
  %15 = tail call double @llvm.fmuladd.f64(double %1, double %12, double %14)
  store double %15, ptr %13, align 8, !tbaa !4
  %16 = add nuw nsw i64 %10, 1
  %17 = icmp eq i64 %16, %7
  br i1 %17, label %8, label %9, !llvm.loop !8
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nofree nosync nounwind memory(argmem: read)
define dso_local double @dot(i32 noundef signext %0, ptr nocapture noundef readonly %1, ptr nocapture noundef readonly %2) local_unnamed_addr #2 {
  %4 = icmp sgt i32 %0, 0
  br i1 %4, label %5, label %7

5:                                                ; preds = %3
  %6 = zext i32 %0 to i64
  br label %9

7:                                                ; preds = %9, %3
  %8 = phi double [ 0.000000e+00, %3 ], [ %16, %9 ]
  ret double %8

9:                                                ; preds = %5, %9
  %10 = phi i64 [ 0, %5 ], [ %17, %9 ]
  %11 = phi double [ 0.000000e+00, %5 ], [ %16, %9 ]
  %12 = getelementptr inbounds double, ptr %1, i64 %10
  %13 = load double, ptr %12, align 8, !tbaa !4
  %14 = getelementptr inbounds double, ptr %2, i64 %10
  %15 = load double, ptr %14, align 8, !tbaa !4
  %16 = tail call double @llvm.fmuladd.f64(double %13, double %15, double %11)
  %17 = add nuw nsw i64 %10, 1
  %18 = icmp eq i64 %17, %6
  br i1 %18, label %7, label %9, !llvm.loop !10
}

; Function Attrs: nofree nosync nounwind memory(argmem: readwrite)
define dso_local void @stencil(i32 noundef signext %0, ptr noalias nocapture noundef readonly %1, ptr noalias nocapture noundef writeonly %2, double noundef %3, double noundef %4, double noundef %5) local_unnamed_addr #0 {
  %7 = icmp sgt i32 %0, 2
  br i1 %7, label %8, label %14

8:                                                ; preds = %6
  %9 = add nsw i32 %0, -1
  %10 = zext i32 %9 to i64
  %11 = load double, ptr %1, align 8, !tbaa !4
  %12 = getelementptr inbounds double, ptr %1, i64 1
  %13 = load double, ptr %12, align 8, !tbaa !4
  br label %15

14:                                               ; preds = %15, %6
  ret void

15:                                               ; preds = %8, %15
  %16 = phi double [ %13, %8 ], [ %23, %15 ]
  %17 = phi double [ %11, %8 ], [ %16, %15 ]
  %18 = phi i64 [ 1, %8 ], [ %21, %15 ]
  %19 = fmul double %16, %4
  %20 = tail call double @llvm.fmuladd.f64(double %3, double %17, double %19)
  %21 = add nuw nsw i64 %18, 1
  %22 = getelementptr inbounds double, ptr %1, i64 %21
  %23 = load double, ptr %22, align 8, !tbaa !4
  %24 = tail call double @llvm.fmuladd.f64(double %5, double %23, double %20)
  %25 = getelementptr inbounds double, ptr %2, i64 %18
  store double %24, ptr %25, align 8, !tbaa !4
  %26 = icmp eq i64 %21, %10
  br i1 %26, label %14, label %15, !llvm.loop !11
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite)
define dso_local void @fir(i32 noundef signext %0, ptr noalias nocapture noundef readonly %1, ptr noalias nocapture noundef writeonly %2, i64 noundef %3, i64 noundef %4, i64 noundef %5, i64 noundef %6) local_unnamed_addr #3 {
  %8 = icmp sgt i32 %0, 0
  br i1 %8, label %9, label %16

9:                                                ; preds = %7
  %10 = zext i32 %0 to i64
  %11 = load i64, ptr %1, align 8, !tbaa !12
  %12 = getelementptr inbounds i64, ptr %1, i64 1
  %13 = load i64, ptr %12, align 8, !tbaa !12
  %14 = getelementptr inbounds i64, ptr %1, i64 2
  %15 = load i64, ptr %14, align 8, !tbaa !12
  br label %17

16:                                               ; preds = %17, %7
  ret void

17:                                               ; preds = %9, %17
  %18 = phi i64 [ %15, %9 ], [ %30, %17 ]
  %19 = phi i64 [ %13, %9 ], [ %18, %17 ]
  %20 = phi i64 [ %11, %9 ], [ %19, %17 ]
  %21 = phi i64 [ 0, %9 ], [ %23, %17 ]
  %22 = mul nsw i64 %20, %3
  %23 = add nuw nsw i64 %21, 1
  %24 = mul nsw i64 %19, %4
  %25 = add nsw i64 %24, %22
  %26 = mul nsw i64 %18, %5
  %27 = add nsw i64 %25, %26
  %28 = add nuw nsw i64 %21, 3
  %29 = getelementptr inbounds i64, ptr %1, i64 %28
  %30 = load i64, ptr %29, align 8, !tbaa !12
  %31 = mul nsw i64 %30, %6
  %32 = add nsw i64 %27, %31
  %33 = getelementptr inbounds i64, ptr %2, i64 %21
  store i64 %32, ptr %33, align 8, !tbaa !12
  %34 = icmp eq i64 %23, %10
  br i1 %34, label %16, label %17, !llvm.loop !14
}

; Function Attrs: nofree nosync nounwind memory(argmem: read)
define dso_local double @matvec_row(i32 noundef signext %0, i32 noundef signext %1, ptr nocapture noundef readonly %2, ptr nocapture noundef readonly %3) local_unnamed_addr #2 {
  %5 = sext i32 %1 to i64
  %6 = sext i32 %0 to i64
  %7 = mul nsw i64 %5, %6
  %8 = getelementptr inbounds double, ptr %2, i64 %7
  %9 = icmp sgt i32 %0, 0
  br i1 %9, label %10, label %12

10:                                               ; preds = %4
  %11 = zext i32 %0 to i64
  br label %14

12:                                               ; preds = %14, %4
  %13 = phi double [ 0.000000e+00, %4 ], [ %21, %14 ]
  ret double %13

14:                                               ; preds = %10, %14
  %15 = phi i64 [ 0, %10 ], [ %22, %14 ]
  %16 = phi double [ 0.000000e+00, %10 ], [ %21, %14 ]
  %17 = getelementptr inbounds double, ptr %8, i64 %15
  %18 = load double, ptr %17, align 8, !tbaa !4
  %19 = getelementptr inbounds double, ptr %3, i64 %15
  %20 = load double, ptr %19, align 8, !tbaa !4
  %21 = tail call double @llvm.fmuladd.f64(double %18, double %20, double %16)
  %22 = add nuw nsw i64 %15, 1
  %23 = icmp eq i64 %22, %11
  br i1 %23, label %12, label %14, !llvm.loop !15
}

; Function Attrs: nofree nosync nounwind memory(argmem: readwrite)
define dso_local void @horner(i32 noundef signext %0, ptr noalias nocapture noundef readonly %1, ptr noalias nocapture noundef writeonly %2, double noundef %3, double noundef %4, double noundef %5, double noundef %6) local_unnamed_addr #0 {
  %8 = icmp sgt i32 %0, 0
  br i1 %8, label %9, label %11

9:                                                ; preds = %7
  %10 = zext i32 %0 to i64
  br label %12

11:                                               ; preds = %12, %7
  ret void

12:                                               ; preds = %9, %12
  %13 = phi i64 [ 0, %9 ], [ %20, %12 ]
  %14 = getelementptr inbounds double, ptr %1, i64 %13
  %15 = load double, ptr %14, align 8, !tbaa !4
  %16 = tail call double @llvm.fmuladd.f64(double %6, double %15, double %5)
  %17 = tail call double @llvm.fmuladd.f64(double %16, double %15, double %4)
  %18 = tail call double @llvm.fmuladd.f64(double %17, double %15, double %3)
  %19 = getelementptr inbounds double, ptr %2, i64 %13
  store double %18, ptr %19, align 8, !tbaa !4
  %20 = add nuw nsw i64 %13, 1
  %21 = icmp eq i64 %20, %10
  br i1 %21, label %11, label %12, !llvm.loop !16
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite)
define dso_local void @prefix_sum(i32 noundef signext %0, ptr noalias nocapture noundef readonly %1, ptr noalias nocapture noundef writeonly %2) local_unnamed_addr #3 {
  %4 = icmp sgt i32 %0, 0
  br i1 %4, label %5, label %7

5:                                                ; preds = %3
  %6 = zext i32 %0 to i64
  br label %8

7:                                                ; preds = %8, %3
  ret void

8:                                                ; preds = %5, %8
  %9 = phi i64 [ 0, %5 ], [ %15, %8 ]
  %10 = phi i64 [ 0, %5 ], [ %13, %8 ]
  %11 = getelementptr inbounds i64, ptr %1, i64 %9
  %12 = load i64, ptr %11, align 8, !tbaa !12
  %13 = add nsw i64 %12, %10
  %14 = getelementptr inbounds i64, ptr %2, i64 %9
  store i64 %13, ptr %14, align 8, !tbaa !12
  %15 = add nuw nsw i64 %9, 1
  %16 = icmp eq i64 %15, %6
  br i1 %16, label %7, label %8, !llvm.loop !17
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: read)
define dso_local double @div_reduce(i32 noundef signext %0, ptr nocapture noundef readonly %1, ptr nocapture noundef readonly %2) local_unnamed_addr #4 {
  %4 = icmp sgt i32 %0, 0
  br i1 %4, label %5, label %7

5:                                                ; preds = %3
  %6 = zext i32 %0 to i64
  br label %9

7:                                                ; preds = %9, %3
  %8 = phi double [ 0.000000e+00, %3 ], [ %17, %9 ]
  ret double %8

9:                                                ; preds = %5, %9
  %10 = phi i64 [ 0, %5 ], [ %18, %9 ]
  %11 = phi double [ 0.000000e+00, %5 ], [ %17, %9 ]
  %12 = getelementptr inbounds double, ptr %1, i64 %10
  %13 = load double, ptr %12, align 8, !tbaa !4
  %14 = getelementptr inbounds double, ptr %2, i64 %10
  %15 = load double, ptr %14, align 8, !tbaa !4
  %16 = fdiv double %13, %15
  %17 = fadd double %11, %16
  %18 = add nuw nsw i64 %10, 1
  %19 = icmp eq i64 %18, %6
  br i1 %19, label %7, label %9, !llvm.loop !18
}

; Function Attrs: nofree nosync nounwind memory(argmem: readwrite)
define dso_local void @clamp(i32 noundef signext %0, ptr noalias nocapture noundef readonly %1, ptr noalias nocapture noundef writeonly %2, i64 noundef %3, i64 noundef %4) local_unnamed_addr #0 {
  %6 = icmp sgt i32 %0, 0
  br i1 %6, label %7, label %9

7:                                                ; preds = %5
  %8 = zext i32 %0 to i64
  br label %10

9:                                                ; preds = %10, %5
  ret void

10:                                               ; preds = %7, %10
  %11 = phi i64 [ 0, %7 ], [ %17, %10 ]
  %12 = getelementptr inbounds i64, ptr %1, i64 %11
  %13 = load i64, ptr %12, align 8, !tbaa !12
  %14 = tail call i64 @llvm.smax.i64(i64 %13, i64 %3)
  %15 = tail call i64 @llvm.smin.i64(i64 %14, i64 %4)
  %16 = getelementptr inbounds i64, ptr %2, i64 %11
  store i64 %15, ptr %16, align 8, !tbaa !12
  %17 = add nuw nsw i64 %11, 1
  %18 = icmp eq i64 %17, %8
  br i1 %18, label %9, label %10, !llvm.loop !19
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smin.i64(i64, i64) #5

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #5

attributes #0 = { nofree nosync nounwind memory(argmem: readwrite) "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+64bit,+d,+f" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nofree nosync nounwind memory(argmem: read) "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+64bit,+d,+f" }
attributes #3 = { nofree norecurse nosync nounwind memory(argmem: readwrite) "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+64bit,+d,+f" }
attributes #4 = { nofree norecurse nosync nounwind memory(argmem: read) "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+64bit,+d,+f" }
attributes #5 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2}
!llvm.ident = !{!3}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{!"Debian clang version 16.0.6 (15~deb12u1)"}
!4 = !{!5, !5, i64 0}
!5 = !{!"double", !6, i64 0}
!6 = !{!"omnipotent char", !7, i64 0}
!7 = !{!"Simple C/C++ TBAA"}
!8 = distinct !{!8, !9}
!9 = !{!"llvm.loop.mustprogress"}
!10 = distinct !{!10, !9}
!11 = distinct !{!11, !9}
!12 = !{!13, !13, i64 0}
!13 = !{!"long", !6, i64 0}
!14 = distinct !{!14, !9}
!15 = distinct !{!15, !9}
!16 = distinct !{!16, !9}
!17 = distinct !{!17, !9}
!18 = distinct !{!18, !9}
!19 = distinct !{!19, !9}
