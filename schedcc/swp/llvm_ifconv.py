"""If-conversion of an LLVM IR loop body of several blocks into one predicated block,
so that the software pipeliner can modulo-schedule it (issue 19).

A loop whose body is a small acyclic region (triangles, diamonds, nested ones:
up to :data:`MAX_BLOCKS` blocks) from its header to its single latch, exiting
only from the latch, becomes one block under the header's label:

* every block gets a **predicate**, an ``i1`` value true in the iterations that
  run it: the header's and any block every iteration passes through are true; an
  edge ``b -> s`` of ``br i1 %c`` is ``P(b) and %c`` (or ``not %c``), written
  ``select i1 P(b), i1 %c, i1 false`` (a logical and: ``%c`` computed under a
  false predicate may be poison); ``P(s)`` is the or of its incoming edges
  (``select i1 e1, i1 true, i1 e2``);
* a ``phi`` of an inner block becomes a chain of ``select`` on its incoming edges;
* an instruction of a block that does not always run is executed anyway
  (speculated) when that is safe: arithmetic, comparisons, conversions,
  ``getelementptr`` (poison at worst, which a ``select`` discards) and the
  intrinsics in :data:`PURE_INTRINSICS`; a division gets divisor
  ``select P, %y, 1``; a **load or store** goes through
  ``select i1 P, ptr %a, ptr %ifc.scratch``: under a false predicate it touches
  a private 64-byte stack slot (an ``alloca`` added to the entry block; through a
  typed pointer, LightIR's, a ``bitcast`` of it to that type, ``%ifc.scratch.*``)
  instead of memory the original would not have touched; a call, a volatile or atomic
  access, an alloca under a condition are refused, with the reason.

The loop analysis (:mod:`schedcc.swp.llvm_loops`) reads such an address as the
guarded one (``%a``): the dependences of an access through it are those of
``%a``'s, the scratch slot being read only under a false predicate, by values
nothing uses.

LLVM numbers unnamed values and blocks in text order, so a removed label ``14:``
becomes a value ``%14`` (its predicate, or ``freeze i1 true`` for a block that
always runs); new values are named ``%ifc.*``. The rest of the function is
unchanged, except the exit block's phis, which now name the header as their
predecessor. Blocks must be in the text in one piece and in an order that
respects their edges (clang's); else the loop is refused.

Example::

    >>> text = '''define void @f(ptr %a, i64 %n) {
    ... entry:
    ...   br label %loop
    ... loop:
    ...   %i = phi i64 [ 0, %entry ], [ %j, %next ]
    ...   %p = getelementptr inbounds i32, ptr %a, i64 %i
    ...   %v = load i32, ptr %p
    ...   %c = icmp slt i32 %v, 0
    ...   br i1 %c, label %neg, label %next
    ... neg:
    ...   store i32 0, ptr %p
    ...   br label %next
    ... next:
    ...   %j = add i64 %i, 1
    ...   %d = icmp eq i64 %j, %n
    ...   br i1 %d, label %exit, label %loop
    ... exit:
    ...   ret void
    ... }
    ... '''
    >>> out = if_convert(text, "@f", "loop")
    >>> print(out[out.index("loop:"):out.index("exit:")].rstrip())
    loop:
      %i = phi i64 [ 0, %entry ], [ %j, %loop ]
      %p = getelementptr inbounds i32, ptr %a, i64 %i
      %v = load i32, ptr %p
      %c = icmp slt i32 %v, 0
      %ifc.a0 = select i1 %c, ptr %p, ptr %ifc.scratch
      store i32 0, ptr %ifc.a0
      %j = add i64 %i, 1
      %d = icmp eq i64 %j, %n
      br i1 %d, label %exit, label %loop
"""

from __future__ import annotations

import re

from schedcc.frontends.llvm_ir import IFC_SCRATCH, parse_llvm
from schedcc.swp.cfg import back_edges

MAX_BLOCKS = 16
SCRATCH = IFC_SCRATCH
SCRATCH_BYTES = 64
PURE_INTRINSICS = frozenset(
    "fmuladd fma fabs sqrt minnum maxnum minimum maximum copysign floor ceil trunc round rint nearbyint "
    "smax smin umax umin abs ctpop ctlz cttz bswap bitreverse fshl fshr expect".split())

_NAME = r"%[-\w.$]+"
_BR_COND = re.compile(r"^\s*br i1 (\S+), label (%[-\w.$]+), label (%[-\w.$]+)")
_BR = re.compile(r"^\s*br label (%[-\w.$]+)")
_DEF = re.compile(r"^\s*(%[-\w.$]+) = (?:tail |musttail |notail )?(\w+)")
_PTR = re.compile(r", ptr (%[-\w.$]+|@[-\w.$]+)(?=[,\s]|$)")
_TYPED_PTR = re.compile(r", ([\w.]+)\* (%[-\w.$]+|@[-\w.$]+)(?=[,\s]|$)")
_DIV = re.compile(r"= ([us](?:div|rem)) (exact )?(\S+) ([^,]+), ([^,\s]+)")
_CALLEE = re.compile(r"@([-\w.$]+)\(")
_SIZES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "i128": 16, "half": 2, "float": 4, "double": 8,
          "ptr": 8}


class Refused(Exception):
    """Why a loop body cannot be if-converted (a sentence)."""


def _size(t: str) -> int | None:
    m = re.fullmatch(r"<(\d+) x (\w+)>", t)
    if m:
        one = _SIZES.get(m.group(2))
        return int(m.group(1)) * one if one else None
    return _SIZES.get(t)


def if_convert(text: str, function: str, header: str) -> str:
    """The whole text with the loop at block *header* of *function* made one block;
    raises :class:`Refused` with the reason. See the module docstring."""
    src = parse_llvm(text, "<if-convert>")
    func = src.program.function(function)
    info = src.extra["llvm"][function]
    found = [(latch, body) for latch, h, body in back_edges(func) if h.label == header]
    if not found:
        raise Refused(f"no loop has its header at '{header}'")
    latch, body = found[0]
    lines = text.splitlines(keepends=True)
    ftext = "".join(lines[info.first_line - 1:info.last_line])
    prefix = "%ifc."            # the next loop if-converted in the function: %ifc2., ...
    if "%ifc.t" in ftext or "%ifc.a" in ftext:
        k = 2
        while f"%ifc{k}." in ftext:
            k += 1
        prefix = f"%ifc{k}."
    labels = [b.label for b in body]
    if len(body) > MAX_BLOCKS:
        raise Refused(f"the body has {len(body)} blocks; if-conversion takes at most {MAX_BLOCKS}")
    if any(not re.fullmatch(r"[-\w.$]+", lab) or lab not in info.label_lines for lab in labels):
        raise Refused("a block of the loop has no plain label")
    order = [b.label for b in func.blocks]
    ends = {lab: (info.label_lines[order[k + 1]] - 1 if k + 1 < len(order) else info.last_line - 1)
            for k, lab in enumerate(order)}
    inside = set(labels)
    names = sorted(labels, key=order.index)

    # Each block: its lines (1-based numbers) without the label, and its terminator.
    blocks: dict[str, list[int]] = {}
    succ: dict[str, list[tuple[str, str | None, bool]]] = {}  # (target, cond, on_true)
    for lab in names:
        nums = [n for n in range(info.label_lines[lab] + 1, ends[lab] + 1)
                if lines[n - 1].strip() and not lines[n - 1].lstrip().startswith(";")]
        blocks[lab] = nums
        term = lines[nums[-1] - 1] if nums else ""
        m, u = _BR_COND.match(term), _BR.match(term)
        if lab == latch.label:
            continue
        if m:
            succ[lab] = [(m.group(2)[1:], m.group(1), True), (m.group(3)[1:], m.group(1), False)]
        elif u:
            succ[lab] = [(u.group(1)[1:], None, True)]
        else:
            raise Refused(f"block '{lab}' ends with '{term.strip()}', not a branch")
        for target, _, _ in succ[lab]:
            if target == header:
                raise Refused(f"block '{lab}' also jumps back to '{header}': a loop with several back edges")
            if target not in inside:
                raise Refused(f"block '{lab}' may leave the loop (to '{target}'): an early exit (a search "
                              "loop) is not if-converted")
    pos = [order.index(lab) for lab in names]
    if pos != list(range(pos[0], pos[0] + len(pos))) or names[0] != header:
        raise Refused("the loop's blocks are not one piece of text starting at its header")
    for lab, ts in succ.items():
        for target, _, _ in ts:
            if order.index(target) <= order.index(lab):
                raise Refused(f"block '{lab}' branches backwards to '{target}'")
    lterm = lines[blocks[latch.label][-1] - 1]
    m = _BR_COND.match(lterm)
    if m is None or header not in (m.group(2)[1:], m.group(3)[1:]):
        raise Refused(f"the latch '{latch.label}' ends with '{lterm.strip()}', not a conditional branch back "
                      f"to '{header}' (a loop testing at its top)")
    preds: dict[str, list[tuple[str, str | None, bool]]] = {lab: [] for lab in names}
    for lab, ts in succ.items():
        for target, cond, on_true in ts:
            preds[target].append((lab, cond, on_true))

    def always(lab: str) -> bool:
        """Every iteration runs *lab*: no path from the header to the latch avoids it."""
        if lab in (header, latch.label):
            return True
        seen, todo = {header}, [header]
        while todo:
            for t, _, _ in succ.get(todo.pop(), []):
                if t != lab and t not in seen:
                    seen.add(t)
                    todo.append(t)
        return latch.label not in seen

    out: list[str] = []
    fresh = [0]
    indent = "  "

    def new(expr: str, name: str | None = None) -> str:
        if name is None:
            name = f"{prefix}t{fresh[0]}"
            fresh[0] += 1
        out.append(f"{indent}{name} = {expr}\n")
        return name

    pred: dict[str, str] = {}
    edge: dict[tuple[str, str], str] = {}
    scratch_used = [False]
    guards: dict[tuple[str, str], str] = {}  # (predicate, address) -> guarded address

    def edge_pred(b: str, s: str) -> str:
        key = (b, s)
        if key in edge:
            return edge[key]
        (cond, on_true), = [(c, t) for tgt, c, t in succ[b] if tgt == s] or [(None, True)]
        if len({t for t, _, _ in succ[b]}) == 1:
            cond = None  # both ways to the same block
        pb = pred[b]
        if cond is None:
            e = pb
        else:
            c = cond if on_true else new(f"xor i1 {cond}, true")
            e = c if pb == "true" else new(f"select i1 {pb}, i1 {c}, i1 false")
        edge[key] = e
        return e

    for lab in names:
        text_label = lines[info.label_lines[lab] - 1]
        numbered = lab.isdigit()
        if lab == header:
            out.append(text_label)
            pred[lab] = "true"
        else:
            if always(lab):
                p = "true"
                if numbered:
                    new("freeze i1 true", f"%{lab}")
            else:
                es = list(dict.fromkeys(edge_pred(b, lab) for b, _, _ in preds[lab]))
                p = es[0]
                for e in es[1:-1]:
                    p = new(f"select i1 {p}, i1 true, i1 {e}")
                if len(es) > 1:
                    p = new(f"select i1 {p}, i1 true, i1 {es[-1]}", f"%{lab}" if numbered else None)
                elif numbered:
                    p = new(f"freeze i1 {p}", f"%{lab}")
            pred[lab] = p
        phis = {ph.line: ph for ph in info.phis.get(lab, [])}
        nums = blocks[lab] if lab == latch.label else blocks[lab][:-1]
        for n in nums:
            line = lines[n - 1]
            if lab == header:
                if n in phis:
                    line = re.sub(rf"(,\s*)%{re.escape(latch.label)}(\s*\])", rf"\1%{header}\2", line)
                out.append(line)
                continue
            if n in phis:
                ph = phis[n]
                if any(v is None for v, _ in ph.incoming):
                    raise Refused(f"the phi {ph.name} (line {n}) takes a constant expression")
                incoming = [(v, edge_pred(b, lab)) for v, b in ph.incoming]
                acc = incoming[-1][0]
                for k in range(len(incoming) - 2, -1, -1):
                    v, e = incoming[k]
                    acc = new(f"select i1 {e}, {ph.type} {v}, {ph.type} {acc}", ph.name if k == 0 else None)
                continue
            out.append(line if pred[lab] == "true"
                       else _speculated(line, n, pred[lab], new, scratch_used, guards, prefix))
    first, last = info.label_lines[header], ends[names[-1]]
    head = lines[:first - 1]
    tail = lines[last:]

    def retarget(line: str, k: int) -> str:
        """The exit's phis (before or after the loop) name the header as their predecessor."""
        if " phi " in line and info.first_line <= k <= info.last_line:
            return re.sub(rf"(,\s*)%{re.escape(latch.label)}(\s*\])", rf"\1%{header}\2", line)
        return line
    head = [retarget(line, k) for k, line in enumerate(head, 1)]
    tail = [retarget(line, k) for k, line in enumerate(tail, last + 1)]
    if scratch_used[0] and SCRATCH + " = alloca" not in ftext:
        head = _with_scratch(head, info.first_line)
    return "".join(head + out + tail)


def _speculated(line: str, n: int, p: str, new, scratch_used: list, guards: dict, prefix: str) -> str:
    """*line*, of a block running under predicate *p*, made safe to run in every iteration."""
    s = line.strip()
    m = _DEF.match(line)
    op = m.group(2) if m else s.split()[0]
    if " volatile " in f" {s} " or " atomic " in f" {s} ":
        raise Refused(f"line {n}: a volatile or atomic access under a condition")
    if op in ("load", "store"):
        if "{" in s:
            raise Refused(f"line {n}: an access of an aggregate under a condition")
        t = re.match(r"(?:%\S+ = )?(?:load|store) (<[^>]*>|[\w.]+)", s)
        width = _size(t.group(1)) if t else None
        if width is None or width > SCRATCH_BYTES:
            raise Refused(f"line {n}: a {op} of a type if-conversion does not handle ({s})")
        a = _PTR.search(line)
        typed = _TYPED_PTR.search(line) if a is None else None
        if typed is not None:       # LightIR, LLVM 14 and before: the scratch slot cast to the pointer's type
            a, ptr = typed, typed.group(1) + "*"
        else:
            ptr = "ptr"
        if a is None:
            raise Refused(f"line {n}: the address of the {op} under a condition is not a plain value")
        scratch_used[0] = True
        key = (p, a.group(2) if typed else a.group(1))
        if key not in guards:
            other = SCRATCH if typed is None else guards.get(("cast", ptr))
            if other is None:       # one cast of the scratch slot per pointer type (written once)
                other = guards[("cast", ptr)] = new(f"bitcast [{SCRATCH_BYTES} x i8]* {SCRATCH} to {ptr}",
                                                    f"{SCRATCH}.{prefix[1:]}{len(guards)}")
            guards[key] = new(f"select i1 {p}, {ptr} {key[1]}, {ptr} {other}", f"{prefix}a{len(guards)}")
        if typed is not None:
            return line[:a.start(2)] + guards[key] + line[a.end(2):]
        guarded = guards[key]
        return line[:a.start(1)] + guarded + line[a.end(1):]
    if op in ("call", "invoke", "callbr"):
        callee = _CALLEE.search(s)
        name = callee.group(1) if callee else "?"
        if name.startswith("llvm.dbg."):
            return line
        family = name.split(".")[1] if name.startswith("llvm.") and "." in name[5:] else ""
        if family in PURE_INTRINSICS:
            return line
        raise Refused(f"line {n}: the call to @{name} runs only under a condition: it cannot be speculated")
    if op in ("udiv", "sdiv", "urem", "srem"):
        d = _DIV.search(line)
        if d is None:
            raise Refused(f"line {n}: a division if-conversion cannot read ({s})")
        y = d.group(5)
        if re.fullmatch(r"-?\d+", y) and int(y) != 0 and not (op[0] == "s" and int(y) == -1):
            return line
        safe = new(f"select i1 {p}, {d.group(3)} {y}, {d.group(3)} 1")
        return line[:d.start(5)] + safe + line[d.end(5):]
    if op in ("alloca", "va_arg", "fence", "atomicrmw", "cmpxchg", "landingpad", "switch", "ret",
              "unreachable", "indirectbr", "resume"):
        raise Refused(f"line {n}: '{op}' under a condition cannot be speculated")
    return line


def _with_scratch(head: list[str], define_line: int) -> list[str]:
    """The lines before the loop with the scratch slot allocated first in the entry block."""
    k = define_line  # 0-based index of the line after `define ... {`
    if not head[k - 1].rstrip().endswith("{"):
        raise Refused("the function's 'define' line does not end with '{'")
    if re.match(r"^\s*[-\w.$\"]+:", head[k]):
        k += 1
    return head[:k] + [f"  {SCRATCH} = alloca [{SCRATCH_BYTES} x i8], align 16\n"] + head[k:]
