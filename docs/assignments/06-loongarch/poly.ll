; ModuleID = 'poly.c'
source_filename = "poly.c"
target datalayout = "e-m:e-p:64:64-i64:64-i128:128-n64-S128"
target triple = "loongarch64-unknown-linux-gnu"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: read)
define dso_local signext i32 @poly(i32 noundef signext %0, i32 noundef signext %1, ptr nocapture noundef readonly %2) local_unnamed_addr #0 {
  %4 = mul nsw i32 %0, %0
  %5 = mul nsw i32 %1, 3
  %6 = load i32, ptr %2, align 4, !tbaa !4
  %7 = getelementptr inbounds i32, ptr %2, i64 1
  %8 = load i32, ptr %7, align 4, !tbaa !4
  %9 = add nsw i32 %8, %6
  %10 = add nsw i32 %5, %4
  %11 = mul nsw i32 %9, %10
  %12 = getelementptr inbounds i32, ptr %2, i64 2
  %13 = load i32, ptr %12, align 4, !tbaa !4
  %14 = sub nsw i32 %13, %0
  %15 = mul nsw i32 %14, %1
  %16 = add nsw i32 %15, %11
  ret i32 %16
}

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: read) "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+64bit,+d,+f" }

!llvm.module.flags = !{!0, !1, !2}
!llvm.ident = !{!3}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{!"Debian clang version 16.0.6 (15~deb12u1)"}
!4 = !{!5, !5, i64 0}
!5 = !{!"int", !6, i64 0}
!6 = !{!"omnipotent char", !7, i64 0}
!7 = !{!"Simple C/C++ TBAA"}
