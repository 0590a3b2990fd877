"""The fuzz's cases of files and command lines (issue 21): front ends (``.ir``, ``.ll``,
``.s``), ``pipeline --import``, ``deps --answer``, and each command with missing, wrong or
odd arguments. ``bench/fuzz_cases.py`` gathers them with the other families."""

from __future__ import annotations

import random

from fuzz_base import Case, seeds

# -- front ends ---------------------------------------------------------------------------------------------

def _huge(n: int) -> str:
    return "9" * n


def frontend_texts() -> dict[str, tuple[bytes, bool]]:
    """name -> (file content, clearly invalid)."""
    s = seeds()
    out: dict[str, tuple[bytes, bool]] = {}
    rnd = random.Random(21)
    for name in ("p.ir", "loop.ir", "f.ll", "f.s"):
        text = s[name]
        stem, ext = name.rsplit(".", 1)
        for k in range(1, 10):
            out[f"{stem}-trunc{k}.{ext}"] = (text[:len(text) * k // 10], False)
        out[f"{stem}-empty.{ext}"] = (b"", False)
        out[f"{stem}-binary.{ext}"] = (bytes(rnd.randrange(256) for _ in range(4000)), True)
        out[f"{stem}-badutf8.{ext}"] = (text[:len(text) // 2] + b"\xff\xfe" + text[len(text) // 2:], True)
        out[f"{stem}-overlong.{ext}"] = (text + b"\n\xc0\xaf\n", True)
        out[f"{stem}-cut-char.{ext}"] = (text + b"\xe2\x82", True)
        out[f"{stem}-utf16.{ext}"] = (text.decode().encode("utf-16"), True)
        out[f"{stem}-nul.{ext}"] = (text.replace(b"\n", b"\n\x00", 1), True)
        out[f"{stem}-crlf.{ext}"] = (text.replace(b"\n", b"\r\n"), False)
        out[f"{stem}-cr.{ext}"] = (text.replace(b"\n", b"\r"), False)
        out[f"{stem}-longline.{ext}"] = (text + (b"; " if ext == "ll" else b"# ") + b"x" * 2_000_000 + b"\n", False)
        lines = text.splitlines(keepends=True)
        for k in range(6):
            i = rnd.randrange(len(lines))
            j = rnd.randrange(len(lines))
            mutated = lines[:i] + lines[j:j + 1] + lines[i + 1:]
            out[f"{stem}-swap{k}.{ext}"] = (b"".join(mutated), False)
            d = rnd.randrange(len(text))
            out[f"{stem}-del{k}.{ext}"] = (text[:d] + text[d + rnd.randrange(1, 20):], False)
    # .ir: numbers and nesting
    ir_head, ir_tail = b"func f(a, b) {\nentry:\n", b"  ret t\n}\n"
    for label, line, bad in [
        ("bigconst", f"t = a + {_huge(5000)}", True), ("inf", "t = a + 1e400", True),
        ("hex", "t = a + 0x" + "f" * 1000, True), ("offset", f"t = load A[a + {_huge(30)}]", True),
        ("scale", f"t = load A[{_huge(30)} * a]", True), ("attr", f"t = matmul a {{flops = {_huge(400)}}}", True),
        ("attr-inf", "t = matmul a {flops = 1e400}", True), ("attr-nan", "t = matmul a {flops = nan}", False),
        ("attr-unit", "t = matmul a {bytes = 99999999999TiB}", True), ("neg-zero", "t = a + -0", False),
        ("nested-attrs", "t = add a, b {x = " + "{" * 1000 + "}" * 1000 + "}", True),
        ("nested-brackets", "t = load " + "A[" * 1000 + "a" + "]" * 1000, True),
        ("nested-parens", "t = call g(" + "(" * 1000 + ")" * 1000 + ")", True),
        ("many-terms", "t = load A[" + " + ".join(["a"] * 50000) + "]", False),
        ("many-operands", "t = add " + ", ".join(["a"] * 50000), False),
        ("many-attrs", "t = add a, b {" + ", ".join(f"k{i} = 1" for i in range(20000)) + "}", False),
        ("long-name", "t" + "x" * 1_000_000 + " = a + b", False),
    ]:
        out[f"x-{label}.ir"] = (ir_head + line.encode() + b"\n" + ir_tail, bad)
    body = b"  t = a + b\n" * 100000
    out["x-100k-lines.ir"] = (ir_head + body + ir_tail, False)
    out["x-10k-funcs.ir"] = (b"".join(b"func f%d(a) {\nentry:\n  t = a + 1\n  ret t\n}\n" % i for i in range(10000)),
                             False)
    out["x-10k-blocks.ir"] = (b"func f(a) {\n" + b"".join(b"b%d:\n  t = a + 1\n" % i for i in range(10000))
                              + b"  ret t\n}\n", False)
    # .ll: types and numbers
    def ll(body: str, pre: str = "") -> bytes:
        return (pre + "define i32 @f(i32 %a, ptr %p) {\nentry:\n" + body + "  ret i32 %a\n}\n").encode()
    deep = "".join("[1 x " for _ in range(30000)) + "i32" + "]" * 30000
    for label, content, bad in [
        ("deep-type-30k", ll("", f"%T = type {deep}\n"), True),
        ("deep-type-1k", ll("", "%T = type " + "[1 x " * 1000 + "i32" + "]" * 1000 + "\n"), True),
        ("deep-struct", ll("", "%T = type " + "{ " * 1000 + "i32" + " }" * 1000 + "\n"), True),
        ("deep-alloca", ll("  %x = alloca " + "[1 x " * 5000 + "i32" + "]" * 5000 + "\n"), True),
        ("deep-vector", ll("", "%T = type " + "<1 x " * 1000 + "i32" + ">" * 1000 + "\n"), True),
        ("deep-call", ll("  %x = call i32 @g(" + "(" * 1000 + ")" * 1000 + ")\n"), True),
        ("big-int", ll(f"  %x = add i32 %a, {_huge(5000)}\n"), True),
        ("big-width", ll("  %x = add i4294967296 1, 2\n"), True),
        ("big-array", ll("  %x = alloca [1000000000000000000000 x i64]\n"), True),
        ("big-array-2", ll("  %x = alloca [4294967296 x [4294967296 x i64]]\n"), True),
        ("big-gep", ll("  %x = getelementptr [4 x i32], ptr %p, i64 0, i64 " + _huge(40) + "\n"
                       "  %y = load i32, ptr %x\n"), True),
        ("big-vector", ll("  %x = alloca <4294967296 x i32>\n"), True),
        ("big-align", ll("  %x = alloca i32, align " + _huge(30) + "\n"), True),
        ("float-inf", ll("  %x = fadd double 1.0e400, 1.0\n"), True),
        ("hex-float", ll("  %x = fadd double 0x" + "F" * 100 + ", 1.0\n"), True),
        ("many-phis", ll("  br label %b\nb:\n" + "".join(f"  %v{i} = phi i32 [ %a, %entry ], [ %v{i}, %b ]\n"
                                                          for i in range(2000)) + "  br label %b\n"), False),
        ("many-instrs", ll("".join(f"  %v{i} = add i32 %a, {i}\n" for i in range(30000))), False),
    ]:
        out[f"x-{label}.ll"] = (content, bad)
    # .s: numbers and nesting
    for label, line, bad in [
        ("big-imm", f"\taddi.d $a0, $a0, {_huge(5000)}", True),
        ("big-hex", "\tld.d $a0, $sp, 0x" + "f" * 100, True),
        ("nested-reloc", "\tpcalau12i $a0, " + "%pc_hi20(" * 1000 + "x" + ")" * 1000, True),
        ("many-operands", "\tadd.d $a0, " + ", ".join(["$a1"] * 50000), True),
        ("long-label", "x" * 1_000_000 + ":", False),
        ("directive-long", "\t.ascii \"" + "x" * 1_000_000 + "\"", False),
        ("many-lines", "\n".join(["\tadd.d $a0, $a0, $a1"] * 100000), False),
    ]:
        out[f"x-{label}.s"] = (f"f:\n{line}\n\tjr $ra\n".encode(), bad)
    return out


def frontend_cases() -> list[Case]:
    cases = []
    s = seeds()
    for name, (content, bad) in frontend_texts().items():
        ext = name.rsplit(".", 1)[1]
        target = "la464" if ext in ("ll", "s") else "mips4"
        cases.append(Case("frontend", [name, "--target", target], {name: content}, invalid=bad))
        if "trunc" in name or name.startswith("x-") or "binary" in name or "badutf8" in name:
            cases.append(Case("frontend", [name, "--target", target, "--pipeline"], {name: content}, invalid=bad))
        if name.startswith(("p-", "loop-")) or name.startswith("x-") and ext == "ir":
            cases.append(Case("frontend", ["deps", name, "--target", target], {name: content}, invalid=bad))
        if name.startswith("loop-") or name.startswith("x-") and ext == "ir":
            cases.append(Case("frontend", ["run", name], {name: content}, invalid=bad))
        if name.startswith(("p-", "f-")):
            orig = "p.ir" if ext == "ir" else f"f.{ext}"
            cases.append(Case("frontend", ["check", name, "--against", orig, "--target", target],
                              {name: content, orig: s[orig]}, invalid=bad))
            cases.append(Case("frontend", ["report", name, "--target", target, "-o", "r.html"], {name: content},
                              invalid=bad))
        if "trunc5" in name or "binary" in name:
            cases.append(Case("frontend", ["gap", "d", "--target", target], {f"d/{name}": content}, invalid=False))
    return cases


# -- other readers ---------------------------------------------------------------------------------------------

def import_cases() -> list[Case]:
    texts: dict[str, tuple[str | bytes, bool]] = {
        "ok.txt": ("0F0 0F1 0B0 0B1\n1F0 1B0 1F1 1B1\n", False),
        "ok.json": ('[["0F0", "0B0"], ["1F0", "1B0"]]', False),
        "deep.json": ("[" * 1000 + "]" * 1000, True),
        "deep100k.json": ("[" * 100000 + "]" * 100000, True),
        "deep-obj.json": ('[[{"a": ' * 1000 + "1" + "}" * 1000 + "]]", True),
        "nums.json": ("[[1e400, 2]]", True),
        "bigint.json": (f"[[{_huge(5000)}]]", True),
        "nan.json": ("[[NaN, Infinity]]", True),
        "obj.json": ('{"a": 1}', True),
        "str.json": ('"0F0"', True),
        "empty.json": ("[]", True),
        "empty-rows.json": ("[[]]", True),
        "trunc.json": ('[["0F0", "0B0"], ["1F', True),
        "trunc2.json": ('[["0F0",\n "0B0"],\n', True),
        "bad-action.json": ('[["0F0", "0Z0"]]', True),
        "null.json": ('[["0F0", null, "0B0"]]', False),
        "huge-mb.txt": (f"0F{_huge(30)} 0B{_huge(30)}\n", True),
        "huge-stage.txt": (f"{_huge(30)}F0\n", True),
        "big-mb.txt": ("0F100000000 0B100000000\n", True),
        "big-stage.txt": ("100000000F0 100000000B0\n", True),
        "neg.txt": ("0F-1\n", True),
        "ranks.txt": ("rank 0: 0F0 0B0\nrank 5: 1F0\n", True),
        "rank-huge.txt": (f"rank {_huge(5000)}: 0F0\n", True),
        "many-ranks.txt": ("".join(f"{r}F0 {r}B0\n" for r in range(20000)), False),
        "many-actions.txt": (" ".join(f"0F{m} 0B{m}" for m in range(50000)) + "\n", False),
        "empty.txt": ("", True),
        "comments.txt": ("# nothing\n", True),
        "binary.txt": (bytes(range(256)), True),
        "badutf8.txt": (b"0F0 0B0\xff\n", True),
        "overlap.txt": ("(0F1;1B0)OVERLAP_F_B\n", False),
        "overlap-deep.txt": ("(" * 1000 + "0F0" + ")" * 1000 + "OVERLAP_F_B\n", True),
        "long-token.txt": ("0F" + "0" * 1_000_000 + "\n", True),
    }
    cases = []
    for name, (text, bad) in texts.items():
        data = text.encode() if isinstance(text, str) else text
        cases.append(Case("import", ["pipeline", "--import", name], {name: data}, invalid=bad))
        if name in ("ok.txt", "deep.json", "big-mb.txt", "nums.json"):
            cases.append(Case("import", ["pipeline", "--import", name, "--target", "h100-128x"], {name: data},
                              invalid=bad))
    return cases


def answer_cases() -> list[Case]:
    s = seeds()
    good = s["deps.txt"].decode()
    variants = {
        "empty": ("", True), "comments": ("# nothing\n", True), "ok": (good, False),
        "binary": (bytes(range(256)), True), "badutf8": (good.encode() + b"\xff", True),
        "huge-index": (f"#{_huge(5000)} -> #1 RAW a\n", True), "neg-index": ("#-1 -> #1 RAW a\n", True),
        "nan": ("#0 -> #1 RAW a nan\n", True), "inf-weight": ("#0 -> #1 RAW a (+1e400)\n", True),
        "big-weight": (f"#0 -> #1 RAW a (+{_huge(5000)})\n", True), "garbage": ("hello world\n", True),
        "nested": ("#0 -> #1 RAW " + "(" * 1000 + "a" + ")" * 1000 + "\n", True),
        "long": ("#0 -> #1 RAW a\n" * 100000, True), "trunc": (good[:len(good) // 2], False),
        "crlf": (good.replace("\n", "\r\n"), False), "self": ("#0 -> #0 RAW a\n", True),
        "kind": ("#0 -> #1 XYZ a\n", True), "range": ("#0 -> #99 RAW a\n", True),
    }
    cases = []
    for name, (text, bad) in variants.items():
        data = text.encode() if isinstance(text, str) else text
        cases.append(Case("answer", ["deps", "deps.ir", "--target", "mips4", "--answer", f"{name}.txt"],
                          {f"{name}.txt": data, "deps.ir": s["deps.ir"]}, invalid=bad))
    return cases


def command_cases() -> list[Case]:
    """Each command with missing, wrong or odd arguments."""
    argvs = [
        ([], True), (["--version"], False), (["--help"], False), (["nosuch.ir"], True), (["-"], False),
        (["p.ir"], False), (["p.ir", "--target", "nosuch"], True), (["p.ir", "--target", ""], True),
        (["p.ir", "--target", "h100-8x"], True), (["step.ir", "--target", "mips4"], True),
        (["p.ir", "--target", "mips4", "--nosuch"], True), (["p.ir", "--target", "mips4", "-o", ""], True),
        (["p.ir", "--target", "mips4", "--lang", "ll"], True), (["dir", "--target", "mips4"], True),
        (["targets"], False), (["targets", "--show", "mips4"], False), (["targets", "extra"], True),
        (["gen"], True), (["gen", "nosuch"], True), (["train"], True), (["train", "p.ir", "--target", "h100-8x"], True),
        (["train", "step.ir"], True), (["train", "step.ir", "--target", "mips4"], True), (["compare"], True),
        (["compare", "step.ir", "--target", "h100-8x", "--policies", "fifo,ddp"], False), (["pipeline", "--import"], True),
        (["pipeline", "--import", "nosuch.txt"], True), (["pipeline", "--schedule", "nosuch"], True),
        (["pipeline", "--target", "mips4"], True), (["pipeline", "--target", "h100-8x", "--stages", "16"], True),
        (["plan"], True), (["plan", "nosuch", "--gpus", "8", "--global-batch", "8", "--target", "dgx-h100"], True),
        (["plan", "transformer", "--gpus", "8", "--global-batch", "8", "--target", "dgx-h100"], True),
        (["plan", "llama3-8b", "--gpus", "8", "--global-batch", "8", "--target", "h100-8x"], True),
        (["plan", "llama3-8b", "--gpus", "8", "--global-batch", "8", "--target", "mips4"], True),
        (["check"], True), (["check", "p.ir"], True), (["check", "p.ir", "--against", "nosuch.ir"], True),
        (["check", "p.ir", "--against", "loop.ir", "--target", "mips4"], True),
        (["check", "p.ir", "--against", "p.ir", "--target", "mips4"], False),
        (["report", "p.ir"], True), (["report", "p.ir", "-o", "r.txt"], False),
        (["report", "p.ir", "-o", "r.html", "--title", "x" * 100000], False),
        (["run"], True), (["run", "p.ir", "--function", "nosuch"], True), (["run", "loop.ir", "--max-steps", "1"], True),
        (["deps"], True), (["deps", "p.ir", "--block", "nosuch"], True), (["deps", "p.ir", "--answer", "nosuch"], True),
        (["gap"], True), (["gap", "nosuch"], True), (["gap", "p.ir"], False), (["gap", "empty"], False),
    ]
    cases = []
    for argv, bad in argvs:
        files = {"empty/.keep": b""} if "empty" in argv else {}
        if "dir" in argv:
            files = {"dir/a.ir": seeds()["p.ir"]}
        cases.append(Case("command", argv, files, invalid=bad))
    return cases
