; ModuleID = 'kernel.c'
source_filename = "kernel.c"
target datalayout = "e-m:e-p:64:64-i64:64-i128:128-n64-S128"
target triple = "loongarch64-unknown-linux-gnu"

%struct.point = type { i32, i32 }

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite)
define dso_local signext i32 @kernel(ptr nocapture noundef readonly %0, ptr nocapture noundef readonly %1, ptr nocapture noundef writeonly %2, i32 noundef signext %3) local_unnamed_addr #0 {
  %5 = icmp sgt i32 %3, 0
  br i1 %5, label %6, label %8

6:                                                ; preds = %4
  %7 = zext i32 %3 to i64
  br label %14

8:                                                ; preds = %14, %4
  %9 = phi i32 [ 0, %4 ], [ %24, %14 ]
  %10 = sdiv i32 %9, 3
  store i32 %10, ptr %2, align 4, !tbaa !4
  %11 = srem i32 %9, 7
  %12 = add nsw i32 %11, %10
  %13 = getelementptr inbounds %struct.point, ptr %2, i64 0, i32 1
  store i32 %12, ptr %13, align 4, !tbaa !9
  ret i32 %9

14:                                               ; preds = %6, %14
  %15 = phi i64 [ 0, %6 ], [ %25, %14 ]
  %16 = phi i32 [ 0, %6 ], [ %24, %14 ]
  %17 = getelementptr inbounds i32, ptr %0, i64 %15
  %18 = load i32, ptr %17, align 4, !tbaa !10
  %19 = getelementptr inbounds i32, ptr %1, i64 %15
  %20 = load i32, ptr %19, align 4, !tbaa !10
  %21 = mul nsw i32 %20, %18
  %22 = ashr i32 %18, 1
  %23 = add i32 %22, %16
  %24 = add i32 %23, %21
  %25 = add nuw nsw i64 %15, 1
  %26 = icmp eq i64 %25, %7
  br i1 %26, label %8, label %14, !llvm.loop !11
}

attributes #0 = { nofree norecurse nosync nounwind memory(argmem: readwrite) "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+64bit,+d,+f" }

!llvm.module.flags = !{!0, !1, !2}
!llvm.ident = !{!3}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{!"Debian clang version 16.0.6 (15~deb12u1)"}
!4 = !{!5, !6, i64 0}
!5 = !{!"point", !6, i64 0, !6, i64 4}
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = !{!5, !6, i64 4}
!10 = !{!6, !6, i64 0}
!11 = distinct !{!11, !12, !13}
!12 = !{!"llvm.loop.mustprogress"}
!13 = !{!"llvm.loop.unroll.disable"}
