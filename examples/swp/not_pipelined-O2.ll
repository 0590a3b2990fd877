; ModuleID = 'not_pipelined.c'
source_filename = "not_pipelined.c"
target datalayout = "e-m:e-p:64:64-i64:64-i128:128-n64-S128"
target triple = "loongarch64-unknown-linux-gnu"

; Function Attrs: nounwind
define dso_local void @calls(i32 noundef signext %0, ptr nocapture noundef %1) local_unnamed_addr #0 {
  %3 = icmp sgt i32 %0, 0
  br i1 %3, label %4, label %6

4:                                                ; preds = %2
  %5 = zext i32 %0 to i64
  br label %7

6:                                                ; preds = %7, %2
  ret void

7:                                                ; preds = %4, %7
  %8 = phi i64 [ 0, %4 ], [ %12, %7 ]
  %9 = getelementptr inbounds double, ptr %1, i64 %8
  %10 = load double, ptr %9, align 8, !tbaa !4
  %11 = tail call double @g(double noundef %10) #6
  store double %11, ptr %9, align 8, !tbaa !4
  %12 = add nuw nsw i64 %8, 1
  %13 = icmp eq i64 %12, %5
  br i1 %13, label %6, label %7, !llvm.loop !8
}

declare double @g(double noundef) local_unnamed_addr #1

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite)
define dso_local void @branches(i32 noundef signext %0, ptr noalias nocapture noundef readonly %1, ptr noalias nocapture noundef writeonly %2) local_unnamed_addr #2 {
  %4 = icmp sgt i32 %0, 0
  br i1 %4, label %5, label %7

5:                                                ; preds = %3
  %6 = zext i32 %0 to i64
  br label %8

7:                                                ; preds = %15, %3
  ret void

8:                                                ; preds = %5, %15
  %9 = phi i64 [ 0, %5 ], [ %16, %15 ]
  %10 = getelementptr inbounds i64, ptr %1, i64 %9
  %11 = load i64, ptr %10, align 8, !tbaa !10
  %12 = icmp sgt i64 %11, 0
  br i1 %12, label %13, label %15

13:                                               ; preds = %8
  %14 = getelementptr inbounds i64, ptr %2, i64 %9
  store i64 %11, ptr %14, align 8, !tbaa !10
  br label %15

15:                                               ; preds = %8, %13
  %16 = add nuw nsw i64 %9, 1
  %17 = icmp eq i64 %16, %6
  br i1 %17, label %7, label %8, !llvm.loop !12
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: read)
define dso_local signext i32 @search(i32 noundef signext %0, ptr nocapture noundef readonly %1, i64 noundef %2) local_unnamed_addr #3 {
  %4 = icmp sgt i32 %0, 0
  br i1 %4, label %5, label %17

5:                                                ; preds = %3
  %6 = zext i32 %0 to i64
  br label %7

7:                                                ; preds = %5, %12
  %8 = phi i64 [ 0, %5 ], [ %13, %12 ]
  %9 = getelementptr inbounds i64, ptr %1, i64 %8
  %10 = load i64, ptr %9, align 8, !tbaa !10
  %11 = icmp eq i64 %10, %2
  br i1 %11, label %15, label %12

12:                                               ; preds = %7
  %13 = add nuw nsw i64 %8, 1
  %14 = icmp eq i64 %13, %6
  br i1 %14, label %17, label %7, !llvm.loop !13

15:                                               ; preds = %7
  %16 = trunc i64 %8 to i32
  br label %17

17:                                               ; preds = %12, %15, %3
  %18 = phi i32 [ 0, %3 ], [ %16, %15 ], [ %0, %12 ]
  ret i32 %18
}

; Function Attrs: nofree nosync nounwind memory(argmem: readwrite)
define dso_local void @crowded(i32 noundef signext %0, ptr noalias nocapture noundef readonly %1, ptr noalias nocapture noundef writeonly %2, ptr noalias nocapture noundef readonly %3) local_unnamed_addr #4 {
  %5 = load double, ptr %3, align 8, !tbaa !4
  %6 = getelementptr inbounds double, ptr %3, i64 1
  %7 = load double, ptr %6, align 8, !tbaa !4
  %8 = getelementptr inbounds double, ptr %3, i64 2
  %9 = load double, ptr %8, align 8, !tbaa !4
  %10 = getelementptr inbounds double, ptr %3, i64 3
  %11 = load double, ptr %10, align 8, !tbaa !4
  %12 = getelementptr inbounds double, ptr %3, i64 4
  %13 = load double, ptr %12, align 8, !tbaa !4
  %14 = getelementptr inbounds double, ptr %3, i64 5
  %15 = load double, ptr %14, align 8, !tbaa !4
  %16 = getelementptr inbounds double, ptr %3, i64 6
  %17 = load double, ptr %16, align 8, !tbaa !4
  %18 = getelementptr inbounds double, ptr %3, i64 7
  %19 = load double, ptr %18, align 8, !tbaa !4
  %20 = getelementptr inbounds double, ptr %3, i64 8
  %21 = load double, ptr %20, align 8, !tbaa !4
  %22 = getelementptr inbounds double, ptr %3, i64 9
  %23 = load double, ptr %22, align 8, !tbaa !4
  %24 = getelementptr inbounds double, ptr %3, i64 10
  %25 = load double, ptr %24, align 8, !tbaa !4
  %26 = getelementptr inbounds double, ptr %3, i64 11
  %27 = load double, ptr %26, align 8, !tbaa !4
  %28 = getelementptr inbounds double, ptr %3, i64 12
  %29 = load double, ptr %28, align 8, !tbaa !4
  %30 = getelementptr inbounds double, ptr %3, i64 13
  %31 = load double, ptr %30, align 8, !tbaa !4
  %32 = getelementptr inbounds double, ptr %3, i64 14
  %33 = load double, ptr %32, align 8, !tbaa !4
  %34 = getelementptr inbounds double, ptr %3, i64 15
  %35 = load double, ptr %34, align 8, !tbaa !4
  %36 = getelementptr inbounds double, ptr %3, i64 16
  %37 = load double, ptr %36, align 8, !tbaa !4
  %38 = getelementptr inbounds double, ptr %3, i64 17
  %39 = load double, ptr %38, align 8, !tbaa !4
  %40 = getelementptr inbounds double, ptr %3, i64 18
  %41 = load double, ptr %40, align 8, !tbaa !4
  %42 = getelementptr inbounds double, ptr %3, i64 19
  %43 = load double, ptr %42, align 8, !tbaa !4
  %44 = icmp sgt i32 %0, 0
  br i1 %44, label %45, label %47

45:                                               ; preds = %4
  %46 = zext i32 %0 to i64
  br label %48

47:                                               ; preds = %48, %4
  ret void

48:                                               ; preds = %45, %48
  %49 = phi i64 [ 0, %45 ], [ %92, %48 ]
  %50 = phi double [ 0.000000e+00, %45 ], [ %63, %48 ]
  %51 = phi double [ 0.000000e+00, %45 ], [ %81, %48 ]
  %52 = phi double [ 0.000000e+00, %45 ], [ %79, %48 ]
  %53 = phi double [ 0.000000e+00, %45 ], [ %77, %48 ]
  %54 = phi double [ 0.000000e+00, %45 ], [ %75, %48 ]
  %55 = phi double [ 0.000000e+00, %45 ], [ %73, %48 ]
  %56 = phi double [ 0.000000e+00, %45 ], [ %71, %48 ]
  %57 = phi double [ 0.000000e+00, %45 ], [ %69, %48 ]
  %58 = phi double [ 0.000000e+00, %45 ], [ %67, %48 ]
  %59 = phi double [ 0.000000e+00, %45 ], [ %65, %48 ]
  %60 = getelementptr inbounds double, ptr %1, i64 %49
  %61 = load double, ptr %60, align 8, !tbaa !4
  %62 = fmul double %25, %61
  %63 = tail call double @llvm.fmuladd.f64(double %50, double %5, double %62)
  %64 = fmul double %27, %61
  %65 = tail call double @llvm.fmuladd.f64(double %59, double %7, double %64)
  %66 = fmul double %29, %61
  %67 = tail call double @llvm.fmuladd.f64(double %58, double %9, double %66)
  %68 = fmul double %31, %61
  %69 = tail call double @llvm.fmuladd.f64(double %57, double %11, double %68)
  %70 = fmul double %33, %61
  %71 = tail call double @llvm.fmuladd.f64(double %56, double %13, double %70)
  %72 = fmul double %35, %61
  %73 = tail call double @llvm.fmuladd.f64(double %55, double %15, double %72)
  %74 = fmul double %37, %61
  %75 = tail call double @llvm.fmuladd.f64(double %54, double %17, double %74)
  %76 = fmul double %39, %61
  %77 = tail call double @llvm.fmuladd.f64(double %53, double %19, double %76)
  %78 = fmul double %41, %61
  %79 = tail call double @llvm.fmuladd.f64(double %52, double %21, double %78)
  %80 = fmul double %43, %61
  %81 = tail call double @llvm.fmuladd.f64(double %51, double %23, double %80)
  %82 = fadd double %63, %65
  %83 = fadd double %67, %82
  %84 = fadd double %69, %83
  %85 = fadd double %71, %84
  %86 = fadd double %73, %85
  %87 = fadd double %75, %86
  %88 = fadd double %77, %87
  %89 = fadd double %79, %88
  %90 = fadd double %81, %89
  %91 = getelementptr inbounds double, ptr %2, i64 %49
  store double %90, ptr %91, align 8, !tbaa !4
  %92 = add nuw nsw i64 %49, 1
  %93 = icmp eq i64 %92, %46
  br i1 %93, label %47, label %48, !llvm.loop !14
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #5

attributes #0 = { nounwind "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+64bit,+d,+f" }
attributes #1 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+64bit,+d,+f" }
attributes #2 = { nofree norecurse nosync nounwind memory(argmem: readwrite) "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+64bit,+d,+f" }
attributes #3 = { nofree norecurse nosync nounwind memory(argmem: read) "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+64bit,+d,+f" }
attributes #4 = { nofree nosync nounwind memory(argmem: readwrite) "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+64bit,+d,+f" }
attributes #5 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #6 = { nounwind }

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
!10 = !{!11, !11, i64 0}
!11 = !{!"long", !6, i64 0}
!12 = distinct !{!12, !9}
!13 = distinct !{!13, !9}
!14 = distinct !{!14, !9}
