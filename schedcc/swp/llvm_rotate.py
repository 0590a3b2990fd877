"""Loop rotation of LLVM IR (issue 19): a loop that tests at its top (``while``, as a
compiler that does not rotate loops writes it: LightIR, clang without its loop
passes) becomes a guarded loop that tests at its end, so that the pipeliner sees one
self-looping block.

The loop must be a header ``H`` (phis, the test, ``br i1 %c``: into the body or out
to the exit ``X``) and one body block ``B`` that jumps back (``br label %H``), ``X``
reached from ``H`` only. Then:

* ``H`` stays where it was and is the **guard**: its phis keep only the value from
  before the loop, and it runs its instructions once, for the first test;
* ``B`` gets a phi for each value of ``H`` it reads (``%rot.x``: ``H``'s value the
  first time, the copy below afterwards), then its own instructions reading them, then
  a **copy of H's instructions** for the next test (``%rot.n.x``: phis replaced by
  the values the back edge carried), and the branch ``br i1 %rot.n.c, label %B,
  label %X``;
* ``X`` now has two predecessors: its phis get the values from ``B``, and a value of
  ``H`` used after the loop goes through a phi ``%rot.x.lcssa``.

Every instruction of ``H`` runs as often and in the same order as before (T + 1
times for T iterations), so nothing is speculated. Numbered values keep their
numbers (``H`` keeps its lines); new values are named ``%rot.*`` (``%rot2.*`` for
the next loop rotated in the same function, ...).

Example::

    >>> text = '''define void @f(ptr %a, i64 %n) {
    ... entry:
    ...   br label %head
    ... head:
    ...   %i = phi i64 [ 0, %entry ], [ %j, %body ]
    ...   %c = icmp slt i64 %i, %n
    ...   br i1 %c, label %body, label %exit
    ... body:
    ...   %p = getelementptr inbounds i64, ptr %a, i64 %i
    ...   store i64 %i, ptr %p
    ...   %j = add i64 %i, 1
    ...   br label %head
    ... exit:
    ...   ret void
    ... }
    ... '''
    >>> out, loop = rotate(text, "@f", "head")
    >>> print(out[out.index("head:"):out.index("exit:")].rstrip())
    head:
      %i = phi i64 [ 0, %entry ]
      %c = icmp slt i64 %i, %n
      br i1 %c, label %body, label %exit
    body:
      %rot.i = phi i64 [ %i, %head ], [ %j, %body ]
      %p = getelementptr inbounds i64, ptr %a, i64 %rot.i
      store i64 %rot.i, ptr %p
      %j = add i64 %rot.i, 1
      %rot.n.c = icmp slt i64 %j, %n
      br i1 %rot.n.c, label %body, label %exit
"""

from __future__ import annotations

import re

from schedcc.frontends.llvm_ir import parse_llvm
from schedcc.swp.cfg import back_edges
from schedcc.swp.llvm_ifconv import Refused

_DEF = re.compile(r"^\s*(%[-\w.$]+) = ")
_BR_COND = re.compile(r"^\s*br i1 (\S+), label %([-\w.$]+), label %([-\w.$]+)")
_BR = re.compile(r"^\s*br label %([-\w.$]+)")


def _sub(line: str, names: dict[str, str]) -> str:
    """*line* with every value of *names* renamed (whole names only)."""
    if not names:
        return line
    pattern = re.compile(r"(%[-\w.$]+)(?![-\w.$])")
    return pattern.sub(lambda m: names.get(m.group(1), m.group(1)), line)


def rotate(text: str, function: str, header: str) -> tuple[str, str]:
    """The whole text with the top-tested loop at *header* of *function* rotated, and
    the label of the block that is now the loop; raises
    :class:`~schedcc.swp.llvm_ifconv.Refused` with the reason. See the module docstring."""
    src = parse_llvm(text, "<rotate>")
    func = src.program.function(function)
    info = src.extra["llvm"][function]
    found = [(latch, body) for latch, h, body in back_edges(func) if h.label == header]
    if not found:
        raise Refused(f"no loop has its header at '{header}'")
    latch, body = found[0]
    H, B = header, latch.label          # B: the latch, which jumps back
    region = [b.label for b in body if b.label != H]
    lines = text.splitlines(keepends=True)
    ftext = "".join(lines[info.first_line - 1:info.last_line])
    R = next(f"%rot{k or ''}." for k in range(10 ** 6) if f"%rot{k or ''}." not in ftext)  # a loop rotated before: %rot2.
    order = [b.label for b in func.blocks]
    if any(lab not in info.label_lines for lab in region + [H]):
        raise Refused("a block of the loop has no label")
    ends = {lab: (info.label_lines[order[k + 1]] - 1 if k + 1 < len(order) else info.last_line - 1)
            for k, lab in enumerate(order)}

    def block_lines(lab: str) -> list[int]:
        return [n for n in range(info.label_lines[lab] + 1, ends[lab] + 1)
                if lines[n - 1].strip() and not lines[n - 1].lstrip().startswith(";")]

    hl, bl = block_lines(H), block_lines(B)
    bt = _BR.match(lines[bl[-1] - 1])
    if bt is None or bt.group(1) != H:
        raise Refused(f"the loop does not jump back from '{B}' with 'br label %{H}'")
    ht = _BR_COND.match(lines[hl[-1] - 1])
    if ht is None or (ht.group(2) in region) == (ht.group(3) in region):
        raise Refused(f"'{H}' does not end with 'br i1' into the body and out of the loop")
    B0 = ht.group(2) if ht.group(2) in region else ht.group(3)   # the body's first block
    X = ht.group(3) if B0 == ht.group(2) else ht.group(2)
    if X not in info.label_lines:
        raise Refused(f"the exit '{X}' has no label")
    for b in body:
        if b.label != H and any(t not in region and t != H for t in b.successors()):
            raise Refused(f"block '{b.label}' leaves the loop: only its test at the top may")
    if [b.label for b in func.blocks if X in b.successors()] != [H]:
        raise Refused(f"the exit '{X}' is also reached from outside the loop")
    if [b.label for b in func.blocks if B0 in b.successors()] != [H]:
        raise Refused(f"'{B0}' is also reached from inside the loop")
    pos = [order.index(lab) for lab in sorted(region, key=order.index)]
    if pos != list(range(pos[0], pos[0] + len(pos))) or order[pos[0]] != B0 or order[pos[-1]] != B \
            or order.index(H) > pos[0]:
        raise Refused(f"the loop's body is not one piece of text from '{B0}' to '{B}' after '{H}'")
    phis = {ph.line: ph for ph in info.phis.get(H, [])}
    if info.phis.get(B0):
        raise Refused(f"'{B0}' has phis of its own")
    back: dict[str, str] = {}
    for ph in phis.values():
        mine = [v for v, lab in ph.incoming if lab == B]
        if len(ph.incoming) != 2 or len(mine) != 1 or mine[0] is None:
            raise Refused(f"the phi {ph.name} (line {ph.line}) does not take one value from the loop and one "
                          "from before it")
        back[ph.name] = mine[0]
    if any(v in {p.name for p in phis.values()} for v in back.values()):
        raise Refused("a phi of the loop takes another phi's value around the back edge")
    # Values of H: phis and instructions (each with its type)
    h_values: list[tuple[str, str, int]] = []   # (name, type, line)
    for n in hl[:-1]:
        m = _DEF.match(lines[n - 1])
        if m is None:
            continue
        t = phis[n].type if n in phis else info.types.get(m.group(1))
        h_values.append((m.group(1), t or "", n))
    # Instructions of H that compute the same value every time (no phi, no value of the
    # body, no memory, no call: a bound `n - 1` a compiler without LICM leaves there)
    # are not copied: the guard's value serves every iteration.
    region_text = "".join(lines[info.label_lines[B0] - 1:ends[B]])
    variant = {ph.name for ph in phis.values()}
    variant |= set(re.findall(r"^\s*(%[-\w.$]+) = ", region_text, re.M))
    invariant: set[str] = set()
    for name, _, n in h_values:
        if n in phis:
            continue
        line = lines[n - 1]
        op = re.match(r"\s*%[-\w.$]+ = (?:tail )?(\w+)", line)
        reads = set(re.findall(r"(%[-\w.$]+)(?![-\w.$])", line.split("=", 1)[1]))
        if op and op.group(1) not in ("load", "call", "alloca", "phi", "va_arg", "atomicrmw", "cmpxchg") \
                and not reads & variant:
            invariant.add(name)
        else:
            variant.add(name)
    h_values = [(name, t, n) for name, t, n in h_values if name not in invariant]
    for name, t, n in h_values:
        if not t:
            raise Refused(f"'{name}' (line {n}) has a type schedcc cannot write")
    h_names = {name for name, _, _ in h_values}
    copied = {n for _, _, n in h_values}
    cond = ht.group(1)
    # in the body, and after the loop: the values of H in the next iteration's copy
    nxt = {name: back[name] for name in back}
    nxt.update({name: f"{R}n.{name[1:]}" for name, _, n in h_values if n not in phis})
    cur = {name: f"{R}{name[1:]}" for name, _, _ in h_values}
    body_text = "".join(lines[info.label_lines[B0]:bl[-1] - 1])
    used_in_b = {name for name in h_names if re.search(re.escape(name) + r"(?![-\w.$])", body_text)}
    cur_used = {k: v for k, v in cur.items() if k in used_in_b}

    # the exit: phis take B's values too; values of H used after the loop through lcssa phis
    x_phis = {ph.line: ph for ph in info.phis.get(X, [])}
    inside_f = range(info.first_line, info.last_line + 1)
    h_range = range(info.label_lines[H], ends[H] + 1)
    b_range = range(info.label_lines[B0], ends[B] + 1)
    rest_text = "".join(lines[k - 1] for k in inside_f if k not in h_range and k not in b_range)
    lcssa = {name: f"{R}{name[1:]}.lcssa" for name, _, _ in h_values
             if re.search(re.escape(name) + r"(?![-\w.$])", rest_text)}
    indent = "  "

    def _body() -> list[str]:
        """The body: phis for H's values, its lines, H's copy and the new test."""
        body: list[str] = []
        for n in range(info.label_lines[B0], bl[-1]):
            body.append(_sub(lines[n - 1], cur_used))
            if n == info.label_lines[B0]:
                body += [f"{indent}{cur[name]} = phi {t} [ {name}, %{H} ], [ {nxt[name]}, %{B} ]\n"
                         for name, t, _ in h_values if name in used_in_b]
        body += [_sub(lines[n - 1], nxt) for n in hl[:-1] if n not in phis and n in copied]
        br = _sub(lines[hl[-1] - 1], {cond: nxt.get(cond, cond)})
        tail_line = lines[bl[-1] - 1]
        meta = tail_line[tail_line.index("br label") + len(f"br label %{H}"):].rstrip("\n")
        body.append(br.rstrip("\n").split(", !")[0] + meta + "\n")
        return body + lines[bl[-1]:ends[B]]    # blank lines and comments after the body

    out: list[str] = []
    for k, line in enumerate(lines, 1):
        if k in h_range:
            if k in phis:
                line = re.sub(rf",\s*\[[^\]]*,\s*%{re.escape(B)}\s*\]", "", line)
                line = re.sub(rf"\[[^\]]*,\s*%{re.escape(B)}\s*\],\s*", "", line)
            out.append(line)
        elif k == info.label_lines[B0]:
            out += _body()
        elif k in b_range or k not in inside_f:
            if k not in b_range:
                out.append(line)
        elif k in x_phis:
            v = next(v for v, lab in x_phis[k].incoming if lab == H)
            if v is None:
                raise Refused(f"the phi {x_phis[k].name} (line {k}) takes a constant expression")
            line = line.rstrip("\n")
            extra = ", !" + line.split(", !", 1)[1] if ", !" in line else ""
            out.append(line.split(", !", 1)[0] + f", [ {nxt.get(v, v)}, %{B} ]" + extra + "\n")
        else:
            out.append(_sub(line, lcssa))
            if k == info.label_lines[X]:
                out += [f"{indent}{lcssa[name]} = phi {t} [ {name}, %{H} ], [ {nxt[name]}, %{B} ]\n"
                        for name, t, _ in h_values if name in lcssa]
    return "".join(out), B0
