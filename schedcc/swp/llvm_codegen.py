"""LLVM IR for a software-pipelined loop: guard, prologue, kernel with rotating
phis, epilogue, and the original loop for short trip counts.

The loop block ``L`` (see :mod:`schedcc.swp.llvm_loops`) with a modulo schedule
of II cycles and S stages becomes::

    L:          (its own label line) phis merging the values the loop starts with;
                the trip count T; if T < S (or the count is not exact): go to L.orig
    P.orig:     the original loop, unchanged but for its labels: short trip counts
    P.pro:      S - 1 passes that start iterations 0 .. S-2, stage by stage
    P.kernel:   one pass: stage s of iteration p - s; phis carry every value
                that is read k passes after it is made (k phis in a row);
                the loop's own icmp with its bound moved by (stage of the branch) * step
    P.epi:      S - 1 passes that finish the last S - 1 iterations
    P.exit:     phis merging, for every value used after the loop, the original
                loop's and the pipelined code's; then the original exit

``P`` is ``swp.L``. In SSA form no value is overwritten, so no modulo variable
expansion is needed: a value read k passes later goes through k phis, which
LLVM's register allocator turns into registers (rotating registers in
software). Every new value and label has a name, so the unnamed values
(``%12``) of the function keep their numbers; outside the loop only the uses
of the loop's values change (to the merged ``P.out.*``) and the exit block's
phis name ``P.exit`` as their predecessor.

Example::

    >>> from schedcc.frontends.llvm_ir import parse_llvm
    >>> from schedcc.swp.llvm_pipeline import pipeline_llvm
    >>> src = parse_llvm(open("examples/swp/kernels-O2.ll").read(), "kernels-O2.ll")
    >>> res = pipeline_llvm(src, "la464")
    >>> [label for label, _ in next(r for r in res.loops if r.name == "@dot/9").code]
    ['9', 'swp.9.orig', 'swp.9.pro', 'swp.9.kernel', 'swp.9.epi', 'swp.9.exit']
"""

from __future__ import annotations

import re

from schedcc.ir import Const
from schedcc.sched.modulo import ModuloSchedule
from schedcc.swp.llvm_loops import LlvmLoop

_LOCAL = re.compile(r'%(?:"[^"]*"|[-A-Za-z$._0-9]+)')
_LABEL_REF = re.compile(r'label\s+(%(?:"[^"]*"|[-A-Za-z$._0-9]+))')
_SIMPLE = re.compile(r"[-A-Za-z$._0-9]+")


class NotGenerated(Exception):
    """The loop cannot be written back as LLVM IR; the message says why (one line)."""


def label_ref(label: str) -> str:
    """How a branch names *label*: ``%9``, ``%for.body``, ``%"a b"``."""
    return "%" + label if _SIMPLE.fullmatch(label) else f'%"{label}"'


def split_incoming(text: str) -> list[tuple[str, str]]:
    """``[ v, %a ], [ w, %b ]`` -> [(v, %a), (w, %b)]: top-level brackets, the last comma
    inside each (a value may be a constant expression with commas and brackets)."""
    out, depth, start = [], 0, None
    for k, ch in enumerate(text):
        if ch in "[({<":
            if depth == 0 and ch == "[":
                start = k + 1
            depth += 1
        elif ch in "])}>":
            depth -= 1
            if depth == 0 and ch == "]" and start is not None:
                inner = text[start:k]
                d2, cut = 0, -1
                for i, c in enumerate(inner):
                    if c in "[({<":
                        d2 += 1
                    elif c in "])}>":
                        d2 -= 1
                    elif c == "," and d2 == 0:
                        cut = i
                out.append((inner[:cut].strip(), inner[cut + 1:].strip()))
                start = None
        elif ch == ";" and depth == 0:
            break
    return out


def _phi_parts(line: str, phi_type: str) -> tuple[str, str, list[tuple[str, str]]]:
    """(indent + "%x = phi [flags] type", the rest, incoming pairs) of a phi line."""
    m = re.match(r"(\s*)(\S+)\s*=\s*phi\s", line)
    if m is None:
        raise NotGenerated(f"cannot read the phi line '{line.strip()}'")
    at = line.index(phi_type, m.end()) + len(phi_type)
    return line[:at], line[at:], split_incoming(line[at:])


def generate_llvm(text: str, x: LlvmLoop, sched: ModuloSchedule) -> tuple[str, list[tuple[str, list[str]]]]:
    """The whole text with loop *x* pipelined, and the new code block by block (label,
    lines) for reports. Raises :class:`NotGenerated` with a reason."""
    loop, info = x.loop, x.info
    lines = text.splitlines()
    instrs = loop.block.instrs
    L = loop.block.label
    first = info.label_lines.get(L)
    last = instrs[-1].loc.line if instrs[-1].loc else None
    if first is None or last is None:
        raise NotGenerated("the loop block has no label line")
    fstart, fend = info.first_line, info.last_line or len(lines)
    taken = set(_LOCAL.findall("\n".join(lines[fstart - 1:fend])))
    safe = re.sub(r"[^-A-Za-z$._0-9]", "_", L)
    P = "swp." + safe
    while any(t.startswith("%" + P + ".") for t in taken):
        P += "_"
    ii, S = sched.ii, sched.stages
    n = len(instrs)
    stage = {m: sched.cycle[m] // ii for m in range(n)}
    row = {m: sched.cycle[m] % ii for m in range(n)}
    br, cmp = loop.exit.branch, loop.exit.compare
    defs = {ins.dest.name: m for m, ins in enumerate(instrs) if ins.dest is not None}
    phi_of = {p.name: p for p in x.phis}
    basenames: dict[str, str] = {}

    def base(v: str) -> str:
        if v not in basenames:
            b = v[1:].strip('"')
            b = b if _SIMPLE.fullmatch(b) else re.sub(r"[^-A-Za-z$._0-9]", "_", b) + f".q{len(basenames)}"
            basenames[v] = b
        return basenames[v]

    def source(r: str) -> tuple[str, int]:
        return x.chains[r] if r in x.chains else (r, 0)

    def type_of(r: str) -> str:
        t = phi_of[r].type if r in phi_of else info.types.get(r)
        if not t:
            raise NotGenerated(f"'{r}' lives across stages and has a type schedcc cannot write")
        return t

    def pro(v: str, j: int) -> str:
        return f"%{P}.{base(v)}.i{j}"

    def ker(v: str) -> str:
        return f"%{P}.{base(v)}.k"

    alias: dict[tuple[str, int], str] = {}   # (register read, passes back) -> the kernel phi holding it

    def back(r: str, i: int) -> str:
        return alias.get((r, i)) or f"%{P}.{base(r)}.b{i}"

    def epi(v: str, e: int) -> str:
        return f"%{P}.{base(v)}.e{e}"

    def init(r: str, k: int) -> str:
        """The value of phi chain *r* standing for k iterations before the first."""
        chain = [r]
        while len(chain) < x.chains[r][1]:
            chain.append(_back_value(phi_of[chain[-1]], L))
        d = len(chain)
        if not 1 <= k <= d:
            raise NotGenerated(f"internal: {r} has no value {k} iterations before the loop")
        return f"%{P}.in.{base(chain[d - k])}"

    def kpass(m: int, r: str) -> int:
        v, d = source(r)
        return stage[m] + d - stage[defs[v]]

    need: dict[str, int] = {}
    for (m, r) in loop.reaching:
        k = kpass(m, r)
        if k > 0:
            need[r] = max(need.get(r, 0), k)
    exits: dict[str, str] = {}
    for r in x.outside:
        v, d = source(r)
        rel = stage[defs[v]] - d
        if rel > 0:
            exits[r] = epi(v, rel - 1)
        elif rel == 0:
            exits[r] = ker(v)
        else:
            exits[r] = f"back:{-rel}"    # a kernel phi: named once the phis are made
            need[r] = max(need.get(r, 0), -rel)

    # The kernel's exit test: the loop's icmp with its bound moved by (stage of the branch) * step.
    step = loop.iv.step
    shift = stage[br] * step
    bound = loop.exit.bound
    guard: list[str] = []
    if shift == 0:
        kbound = str(bound.text if isinstance(bound, Const) and bound.text else bound)
    elif isinstance(bound, Const):
        kbound = str(bound.value - shift)
    elif x.iv_type == "ptr":
        kbound = f"%{P}.kbound"
        guard.append(f"  {kbound} = getelementptr i8, ptr {bound}, i64 {-shift}")
    else:
        kbound = f"%{P}.kbound"
        guard.append(f"  {kbound} = sub {x.iv_type} {bound}, {shift}")

    mine = set(defs) | set(x.chains)

    def emit(m: int, reads: dict[str, str], result: str | None) -> str:
        ins = instrs[m]
        line = lines[ins.loc.line - 1]
        if m == cmp:
            return _compare_line(line, reads, result, loop.exit.bound_index, kbound)

        def sub(match: re.Match) -> str:
            tok = match.group(0)
            if ins.dest is not None and tok == ins.dest.name:
                return result
            if tok in reads:
                return reads[tok]
            if tok in mine:
                raise NotGenerated(f"internal: '{tok}' in line {ins.loc.line} is not resolved")
            return tok
        return _LOCAL.sub(sub, line)

    order = sorted(range(n), key=lambda m: (row[m], m == br, -stage[m], m))
    regs = {m: [r for r in instrs[m].uses() if (m, r) in loop.reaching] for m in range(n)}
    # prologue
    pro_lines: list[str] = []
    for p in range(S - 1):
        for m in order:
            if m == br or stage[m] > p:
                continue
            j = p - stage[m]
            reads = {}
            for r in regs[m]:
                v, d = source(r)
                jj = j - d
                reads[r] = pro(v, jj) if jj >= 0 else init(r, -jj)
            dest = instrs[m].dest
            pro_lines.append(emit(m, reads, pro(dest.name, j) if dest is not None else None))
    # kernel: phis first; two chains that hold the same values share their phis
    ker_lines: list[str] = []
    made: dict[tuple[str, str], str] = {}
    for r, k in sorted(need.items()):
        v, d = source(r)
        t = type_of(r)
        again = ker(v)
        for i in range(1, k + 1):
            jj = S - 1 - i - stage[defs[v]]
            start = pro(v, jj) if jj >= 0 else init(r, -jj)
            name = made.get((start, again))
            if name is None:
                name = made[(start, again)] = f"%{P}.{base(r)}.b{i}"
                ker_lines.append(f"  {name} = phi {t} [ {start}, %{P}.pro ], [ {again}, %{P}.kernel ]")
            alias[(r, i)] = again = name
    for m in order:
        if m == br:
            continue
        reads = {r: (ker(source(r)[0]) if kpass(m, r) == 0 else back(r, kpass(m, r))) for r in regs[m]}
        dest = instrs[m].dest
        ker_lines.append(emit(m, reads, ker(dest.name) if dest is not None else None))
    k = kpass(br, loop.exit.cond)
    cond = ker(loop.exit.cond) if k == 0 else back(loop.exit.cond, k)
    stay, leave = label_ref(f"{P}.kernel"), label_ref(f"{P}.epi")
    on_true = loop.block.terminator.operands[1].name == L
    ker_lines.append(f"  br i1 {cond}, label {stay if on_true else leave}, label {leave if on_true else stay}")
    # epilogue
    epi_lines: list[str] = []
    for e in range(S - 1):
        for m in order:
            if m == br or stage[m] < e + 1:
                continue
            reads = {}
            for r in regs[m]:
                v, d = source(r)
                kk = kpass(m, r)
                reads[r] = epi(v, e - kk) if kk <= e else ker(v) if kk == e + 1 else back(r, kk - 1 - e)
            dest = instrs[m].dest
            epi_lines.append(emit(m, reads, epi(dest.name, e) if dest is not None else None))
    epi_lines.append(f"  br label %{P}.exit")
    for r in need:
        type_of(r)

    # guard: the loop's entry values, the trip count, the test
    guard_head: list[str] = []
    orig_phis: dict[int, str] = {}
    for phi in x.phis:
        head, _, pairs = _phi_parts(lines[phi.line - 1], phi.type)
        outside = [(v, lab) for v, lab in pairs if lab != label_ref(L)]
        backv = [v for v, lab in pairs if lab == label_ref(L)]
        if len(backv) != 1 or not outside:
            raise NotGenerated(f"cannot read the phi {phi.name} (line {phi.line})")
        guard_head.append(f"  %{P}.in.{base(phi.name)} = phi {phi.type} "
                          + ", ".join(f"[ {v}, {lab} ]" for v, lab in outside))
        orig_phis[phi.line] = (f"{head} [ %{P}.in.{base(phi.name)}, {label_ref(L)} ], "
                               f"[ {backv[0]}, {label_ref(P + '.orig')} ]")
    guard += _trip_guard(x, P, S, f"%{P}.in.{base(loop.iv.reg)}")
    guard.append(f"  br i1 %{P}.go, label %{P}.pro, label %{P}.orig")

    # the original loop, relabelled
    orig = [f"{P}.orig:"]
    exit_ref = label_ref(loop.exit_label)
    for k in range(first + 1, last + 1):
        line = lines[k - 1]
        if k in orig_phis:
            line = orig_phis[k]
        elif k == last:
            line = _LABEL_REF.sub(lambda mm: "label " + (label_ref(P + ".orig") if mm.group(1) == label_ref(L)
                                                          else label_ref(P + ".exit") if mm.group(1) == exit_ref
                                                          else mm.group(1)), line)
        orig.append(line)
    for r, value in exits.items():
        if value.startswith("back:"):
            exits[r] = back(r, int(value[5:]))
    exit_lines = [f"  %{P}.out.{base(r)} = phi {type_of(r)} [ {r}, %{P}.orig ], [ {exits[r]}, %{P}.epi ]"
                  for r in x.outside]
    exit_lines.append(f"  br label {exit_ref}")
    code = [(L, [lines[first - 1].split(":")[0].strip() + ":"] + guard_head + guard),
            (P + ".orig", orig),
            (P + ".pro", [f"{P}.pro:"] + pro_lines + [f"  br label %{P}.kernel"]),
            (P + ".kernel", [f"{P}.kernel:"] + ker_lines),
            (P + ".epi", [f"{P}.epi:"] + epi_lines),
            (P + ".exit", [f"{P}.exit:"] + exit_lines)]
    new_block = [lines[first - 1]] + guard_head + guard
    for _, block_lines in code[1:]:
        new_block += [""] + block_lines

    # outside the loop: uses of its values read the merged ones; the exit's phis name P.exit
    renames = {r: f"%{P}.out.{base(r)}" for r in x.outside}
    out = list(lines)
    for k in range(fstart, fend + 1):
        if first <= k <= last:
            continue
        line = out[k - 1]
        if renames:
            line = _LOCAL.sub(lambda mm: renames.get(mm.group(0), mm.group(0)), line)
        if re.search(r"=\s*phi\s", line):
            line = re.sub(r",\s*" + re.escape(label_ref(L)) + r"\s*\]", f", %{P}.exit ]", line)
        out[k - 1] = line
    out[first - 1:last] = new_block
    return "\n".join(out) + ("\n" if text.endswith("\n") else ""), [(lab, b) for lab, b in code]


def _back_value(phi, label: str) -> str:
    return next(v for v, lab in phi.incoming if lab == label)


def _compare_line(line: str, reads: dict[str, str], result: str | None, bound_index: int, kbound: str) -> str:
    m = re.match(r"(\s*)(\S+)(\s*=\s*icmp\s+\w+\s+\S+\s+)(.*)$", line)
    if m is None:
        raise NotGenerated(f"cannot read the compare '{line.strip()}'")
    parts = split_top(m.group(4))
    ops = [reads.get(p.strip(), p.strip()) for p in parts[:2]]
    ops[bound_index] = kbound
    rest = "".join("," + p for p in parts[2:])
    return f"{m.group(1)}{result}{m.group(3)}{ops[0]}, {ops[1]}{rest}"


def split_top(text: str) -> list[str]:
    """Split at the commas outside brackets."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[({<":
            depth += 1
        elif ch in "])}>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def _trip_guard(x: LlvmLoop, P: str, S: int, x0: str) -> list[str]:
    """Instructions computing whether the pipelined code may run: the trip count T (in
    i64) is at least S, the first test holds, and (for != tests) the induction variable
    meets the bound exactly. *x0* holds the induction variable's first value. Sets ``%P.go``."""
    loop = x.loop
    ex, iv = loop.exit, loop.iv
    t = x.iv_type
    unsigned = x.pred.startswith("u")
    out: list[str] = []

    def wide(value: str, name: str) -> str:
        if t == "i64":
            return value
        if t == "ptr":
            out.append(f"  %{P}.{name} = ptrtoint ptr {value} to i64")
        else:
            out.append(f"  %{P}.{name} = {'zext' if unsigned else 'sext'} {t} {value} to i64")
        return f"%{P}.{name}"

    if ex.offset:
        if t == "ptr":
            out.append(f"  %{P}.first = getelementptr i8, ptr {x0}, i64 {ex.offset}")
        else:
            out.append(f"  %{P}.first = add {t} {x0}, {ex.offset}")
        x0 = f"%{P}.first"
    if isinstance(ex.bound, Const):
        b = str(ex.bound.value)
        if t not in ("i64", "ptr"):
            bits = int(t[1:])
            v = ex.bound.value & ((1 << bits) - 1) if unsigned else ex.bound.value
            b = str(v)
        bw = b
    else:
        bw = wide(str(ex.bound), "bound")
    xw = wide(x0, "x0")
    a = abs(iv.step)
    if ex.op in ("lt", "le") or (ex.op == "ne" and iv.step > 0):
        out.append(f"  %{P}.span = sub i64 {bw}, {xw}")
    else:
        out.append(f"  %{P}.span = sub i64 {xw}, {bw}")
    extra = {"lt": a - 1, "gt": a - 1, "le": a, "ge": a, "ne": 0}[ex.op]
    d = f"%{P}.span"
    if extra:
        out.append(f"  %{P}.span1 = add i64 {d}, {extra}")
        d = f"%{P}.span1"
    if a > 1:
        out.append(f"  %{P}.q = sdiv i64 {d}, {a}")
        d = f"%{P}.q"
    out.append(f"  %{P}.trip = add i64 {d}, 1")
    out.append(f"  %{P}.long = icmp sge i64 %{P}.trip, {S}")
    if ex.op == "ne":
        if a > 1:
            out.append(f"  %{P}.rem = srem i64 %{P}.span, {a}")
            out.append(f"  %{P}.exact = icmp eq i64 %{P}.rem, 0")
            out.append(f"  %{P}.go = and i1 %{P}.long, %{P}.exact")
        else:
            out.append(f"  %{P}.go = and i1 %{P}.long, true")
    else:
        pred = {"lt": "lt", "le": "le", "gt": "gt", "ge": "ge"}[ex.op]
        out.append(f"  %{P}.first.ok = icmp {'u' if unsigned else 's'}{pred} i64 {xw}, {bw}")
        out.append(f"  %{P}.go = and i1 %{P}.long, %{P}.first.ok")
    return out


