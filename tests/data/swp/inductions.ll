; Loops with i32, unsigned (step 3), pointer and down-counting induction variables, and a main that
; runs them for trip counts 0..29 and prints every result: tests/test_swp_llvm.py runs it natively,
; original and pipelined.
define i64 @up32(i32 %n, ptr noalias %a, ptr noalias %b) {
entry:
  %go = icmp sgt i32 %n, 0
  br i1 %go, label %loop, label %done
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %ix = sext i32 %i to i64
  %pa = getelementptr inbounds i64, ptr %a, i64 %ix
  %x = load i64, ptr %pa
  %y = mul i64 %x, 7
  %pb = getelementptr inbounds i64, ptr %b, i64 %ix
  store i64 %y, ptr %pb
  %s.next = add i64 %s, %y
  %i.next = add nsw i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  %r = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  ret i64 %r
}

define i64 @unsigned_by3(i64 %n, ptr noalias %a, ptr noalias %b) {
entry:
  %go = icmp ult i64 0, %n
  br i1 %go, label %loop, label %done
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %pa = getelementptr inbounds i64, ptr %a, i64 %i
  %x = load i64, ptr %pa
  %y = add i64 %x, %i
  %pb = getelementptr inbounds i64, ptr %b, i64 %i
  store i64 %y, ptr %pb
  %i.next = add nuw i64 %i, 3
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  %r = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  ret i64 %r
}

define i64 @pointers(ptr %a, ptr %end, ptr noalias %b) {
entry:
  %go = icmp ne ptr %a, %end
  br i1 %go, label %loop, label %done
loop:
  %p = phi ptr [ %a, %entry ], [ %p.next, %loop ]
  %q = phi ptr [ %b, %entry ], [ %q.next, %loop ]
  %s = phi i64 [ 1, %entry ], [ %s.next, %loop ]
  %x = load i64, ptr %p
  %s.next = mul i64 %s, %x
  store i64 %s.next, ptr %q
  %p.next = getelementptr inbounds i64, ptr %p, i64 1
  %q.next = getelementptr inbounds i64, ptr %q, i64 1
  %c = icmp eq ptr %p.next, %end
  br i1 %c, label %done, label %loop
done:
  %r = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  ret i64 %r
}

define i64 @down(i64 %n, ptr noalias %a, ptr noalias %b) {
entry:
  %go = icmp sgt i64 %n, 0
  br i1 %go, label %loop, label %done
loop:
  %i = phi i64 [ %n, %entry ], [ %i.next, %loop ]
  %t = phi i64 [ 5, %entry ], [ %x, %loop ]
  %i.next = add nsw i64 %i, -1
  %pa = getelementptr inbounds i64, ptr %a, i64 %i.next
  %x = load i64, ptr %pa
  %y = sub i64 %x, %t
  %pb = getelementptr inbounds i64, ptr %b, i64 %i.next
  store i64 %y, ptr %pb
  %c = icmp sge i64 %i.next, 1
  br i1 %c, label %loop, label %done
done:
  %r = phi i64 [ 0, %entry ], [ %t, %loop ]
  ret i64 %r
}

declare i32 @printf(ptr, ...)
@fmt = private constant [6 x i8] c"%lld \00"
@nl = private constant [2 x i8] c"\0A\00"

define i32 @main() {
entry:
  %a = alloca [40 x i64]
  %b = alloca [40 x i64]
  br label %outer
outer:
  %n = phi i64 [ 0, %entry ], [ %n.next, %next ]
  br label %fill
fill:
  %k = phi i64 [ 0, %outer ], [ %k.next, %fill ]
  %pa = getelementptr [40 x i64], ptr %a, i64 0, i64 %k
  %v0 = mul i64 %k, 13
  %v1 = add i64 %v0, %n
  %v = urem i64 %v1, 11
  store i64 %v, ptr %pa
  %pb = getelementptr [40 x i64], ptr %b, i64 0, i64 %k
  store i64 0, ptr %pb
  %k.next = add i64 %k, 1
  %kc = icmp ult i64 %k.next, 40
  br i1 %kc, label %fill, label %run
run:
  %n32 = trunc i64 %n to i32
  %r1 = call i64 @up32(i32 %n32, ptr %a, ptr %b)
  %r2 = call i64 @unsigned_by3(i64 %n, ptr %a, ptr %b)
  %endp = getelementptr i64, ptr %a, i64 %n
  %r3 = call i64 @pointers(ptr %a, ptr %endp, ptr %b)
  %r4 = call i64 @down(i64 %n, ptr %a, ptr %b)
  call i32 (ptr, ...) @printf(ptr @fmt, i64 %r1)
  call i32 (ptr, ...) @printf(ptr @fmt, i64 %r2)
  call i32 (ptr, ...) @printf(ptr @fmt, i64 %r3)
  call i32 (ptr, ...) @printf(ptr @fmt, i64 %r4)
  br label %show
show:
  %j = phi i64 [ 0, %run ], [ %j.next, %show ]
  %pj = getelementptr [40 x i64], ptr %b, i64 0, i64 %j
  %bj = load i64, ptr %pj
  call i32 (ptr, ...) @printf(ptr @fmt, i64 %bj)
  %j.next = add i64 %j, 1
  %jc = icmp ult i64 %j.next, 40
  br i1 %jc, label %show, label %next
next:
  call i32 (ptr, ...) @printf(ptr @nl)
  %n.next = add i64 %n, 1
  %nc = icmp ult i64 %n.next, 30
  br i1 %nc, label %outer, label %exit
exit:
  ret i32 0
}
