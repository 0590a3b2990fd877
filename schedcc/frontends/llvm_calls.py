"""LLVM calls whose effects schedcc knows, and which allocas stay private:
for :mod:`schedcc.frontends.llvm_ir`.

An intrinsic with a known effect becomes an instruction of its own whose
opcode is the intrinsic's name (``llvm.fmuladd.f64``), so that the machine
models cost it (their classes list ``llvm.fmuladd.*`` with the LoongArch
instruction it lowers to):

* pure ones (``fmuladd fma fabs sqrt copysign minnum maxnum smax smin umax umin
  abs ctpop ctlz cttz bswap bitreverse``) read their operands and write their result;
* ``memcpy``/``memmove`` write their first pointer's bytes and read the second's,
  ``memset`` writes its first pointer's;
* ``lifetime.start``/``end`` write their object (so its accesses stay on their side);
* ``dbg.*``, ``assume``, ``experimental.noalias.scope.decl`` have no effect.

Every other call stays ``call``: a barrier that orders all memory.

Example::

    >>> from schedcc.frontends.llvm_ir import parse_llvm
    >>> text = ("define double @f(double %a, double %b) {\\n"
    ...         "  %c = call double @llvm.fmuladd.f64(double %a, double %b, double %a)\\n  ret double %c\\n}\\n")
    >>> str(parse_llvm(text).program.functions[0].blocks[0].instrs[0])
    '%c = llvm.fmuladd.f64 %a, %b, %a'
"""

from __future__ import annotations

from schedcc.frontends.llvm_tree import LInstr, Val
from schedcc.frontends.llvm_types import LType
from schedcc.ir import Attr, Instr, Loc, Reg

UNKNOWN_WIDTH = 1 << 30  # an access of unknown size overlaps everything at its base

# Intrinsics whose effect schedcc knows: each becomes an instruction whose opcode is
# the intrinsic's name (``llvm.fmuladd.f64``), costed by the machine model's classes
# (targets/*.toml); every other call stays ``call``, a barrier for memory.
PURE_INTRINSICS = frozenset({"fmuladd", "fma", "fabs", "sqrt", "copysign", "minnum", "maxnum", "minimum",
                             "maximum", "smax", "smin", "umax", "umin", "abs", "ctpop", "ctlz", "cttz",
                             "bswap", "bitreverse"})
MEMORY_INTRINSICS = frozenset({"memcpy", "memmove", "memset"})    # write their first pointer (and read the second)
MARKER_INTRINSICS = ("lifetime.start", "lifetime.end")            # order the accesses of their object only
HINT_INTRINSICS = ("dbg.", "assume", "experimental.noalias.scope.decl")  # no effect at all


def intrinsic_kind(callee: str) -> str | None:
    """``pure``, ``memory``, ``marker``, ``hint`` or None (not an intrinsic schedcc knows).

    >>> intrinsic_kind("@llvm.fmuladd.f64"), intrinsic_kind("@llvm.memcpy.p0.p0.i64"), intrinsic_kind("@printf")
    ('pure', 'memory', None)
    """
    if not callee.startswith("@llvm."):
        return None
    name = callee[len("@llvm."):]
    family = name.split(".")[0]
    if family in PURE_INTRINSICS:
        return "pure"
    if family in MEMORY_INTRINSICS:
        return "memory"
    if name.startswith(MARKER_INTRINSICS):
        return "marker"
    if name.startswith(HINT_INTRINSICS):
        return "hint"
    return None


# Intrinsics that take a pointer without keeping it anywhere.
_NOCAPTURE_CALLS = ("@llvm.lifetime.", "@llvm.memcpy", "@llvm.memmove", "@llvm.memset", "@llvm.dbg.")
_DERIVE = ("getelementptr", "bitcast", "addrspacecast")


def typed_values(li: LInstr) -> list[tuple[LType, Val]]:
    return [x for x in li.items if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], LType)]


def escaped_allocas(body: list) -> set[str]:
    """The allocas of a function body whose address may reach a pointer register.

    An alloca stays private while its address (or a getelementptr / bitcast
    of it) is only ever the address of a load or a store, or the argument of
    a non-capturing intrinsic (``llvm.lifetime``, ``llvm.memcpy``, ...). Any
    other use (stored as a value, passed to a call, a phi, a compare, a
    ptrtoint, returned, a volatile access) lets an unknown pointer point into
    it. O(instructions).

    Example: in ``%a = alloca i32; store ptr %a, ptr %b`` the alloca ``%a`` escapes.
    """
    instrs = [x for x in body if isinstance(x, LInstr)]
    root = {str(li.result): str(li.result) for li in instrs if li.op == "alloca" and li.result is not None}
    for _ in range(2):  # twice: a derived pointer may be used above its definition
        for li in instrs:
            values = typed_values(li)
            if li.op in _DERIVE and li.result is not None and values and values[0][1].text in root:
                root[str(li.result)] = root[values[0][1].text]
    escaped: set[str] = set()
    for li in instrs:
        callee = li.extra.get("callee")
        nocapture = li.op == "call" and callee is not None and callee.text.startswith(_NOCAPTURE_CALLS)
        for pos, (_, v) in enumerate(typed_values(li)):
            if v.kind != "local" or v.text not in root:
                continue
            # (a volatile access is a pointer reference of its own: its object must stay reachable)
            address = ((li.op == "load" and pos == 0) or (li.op == "store" and pos == 1)) and \
                not li.extra.get("volatile") or (li.op in _DERIVE and pos == 0)
            if not (address or nocapture):
                escaped.add(root[v.text])
        for item in li.items:
            if isinstance(item, tuple) and item[0] in ("phi_in", "case"):
                for v in item[1:]:
                    v = v[1] if isinstance(v, tuple) else v
                    if isinstance(v, Val) and v.text in root:
                        escaped.add(root[v.text])
    return escaped



def intrinsic_instr(fb, li: LInstr, dest: Reg | None, values: list, loc: Loc) -> Instr | None:
    """An intrinsic with a known effect as its own instruction (see :func:`intrinsic_kind`),
    or None to keep the call a barrier. *fb* is the front end's function builder (its
    ``operand`` and ``mem_operands``)."""
    name = li.extra["callee"].text
    kind = intrinsic_kind(name)
    opcode = name[1:]
    if kind == "pure" and dest is not None:
        return Instr(opcode, dest, tuple(fb.operand(v) for _, v in values), (), loc)
    if kind == "hint":
        return Instr(opcode, None, tuple(Reg(v.text) for _, v in values if v.kind == "local"), (), loc)
    if kind == "marker" and len(values) == 2 and values[1][1].kind in ("local", "global") and dest is None:
        size = values[0][1].data[0] if values[0][1].kind == "int" else -1
        mem, extra, attrs = fb.mem_operands(values[1][1], size if size > 0 else UNKNOWN_WIDTH)
        return Instr(opcode, None, (mem, *extra, fb.operand(values[0][1])), attrs, loc)
    if kind != "memory" or dest is not None or len(values) != 4:
        return None
    volatile = values[3][1]
    if volatile.kind != "word" or volatile.text != "false":
        return None  # a volatile copy: keep it a barrier
    length = values[2][1]
    width = length.data[0] if length.kind == "int" and length.data[0] > 0 else UNKNOWN_WIDTH
    dst, dst_extra, attrs = fb.mem_operands(values[0][1], width)
    ops: list = [dst]
    if name.startswith(("@llvm.memcpy", "@llvm.memmove")):
        src, src_extra, src_attrs = fb.mem_operands(values[1][1], width)
        ops += [src, *dst_extra, *src_extra]
        if any(k == "private" for k, _ in src_attrs):
            attrs += (("src_private", Attr(True)),)
    else:
        ops += [*dst_extra, fb.operand(values[1][1])]
    ops.append(fb.operand(length))
    if width != UNKNOWN_WIDTH:
        attrs += (("bytes", Attr(width)),)
    return Instr(opcode, None, tuple(ops), attrs, loc)
