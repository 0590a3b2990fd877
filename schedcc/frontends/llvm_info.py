"""What the LLVM IR front end remembers of a function beyond its schedcc IR: the
``phi`` nodes (which the schedcc IR leaves out: they cost nothing), the type of
every value, and where the labels are. The software pipeliner
(:mod:`schedcc.swp.llvm_loops`) needs them to find induction variables and
to write new LLVM IR; :func:`check_phis` refuses a ``phi`` that names an
undefined value or label.

Example::

    >>> from schedcc.frontends.llvm_ir import parse_llvm
    >>> src = parse_llvm("define i64 @f(i64 %n) {\\nentry:\\n  br label %loop\\nloop:\\n"
    ...                  "  %i = phi i64 [ 0, %entry ], [ %j, %loop ]\\n  %j = add i64 %i, 1\\n"
    ...                  "  %c = icmp slt i64 %j, %n\\n  br i1 %c, label %loop, label %done\\n"
    ...                  "done:\\n  ret i64 %j\\n}\\n")
    >>> info = src.extra["llvm"]["@f"]
    >>> info.phis["loop"][0].name, info.phis["loop"][0].type, info.phis["loop"][0].incoming
    ('%i', 'i64', (('0', 'entry'), ('%j', 'loop')))
    >>> info.types["%j"], info.types["%c"]
    ('i64', 'i1')
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schedcc.errors import SchedccError
from schedcc.frontends.llvm_tree import LInstr, Val
from schedcc.frontends.llvm_types import LType
from schedcc.ir import Loc


@dataclass(frozen=True)
class Phi:
    """``name = phi type [value, label], ...``: values as written (simple values: their
    text; a constant expression: None), labels without ``%``."""

    name: str
    type: str
    incoming: tuple[tuple[str | None, str], ...]
    line: int


@dataclass
class FunctionInfo:
    """One function: its phis per block label, the type of each value it defines
    (None when schedcc cannot write it: aggregates), the line of each label, the
    lines of allocas per block, its parameters and the number of its entry block."""

    phis: dict[str, list[Phi]] = field(default_factory=dict)
    types: dict[str, str | None] = field(default_factory=dict)
    label_lines: dict[str, int] = field(default_factory=dict)
    allocas: dict[str, list[int]] = field(default_factory=dict)
    params: tuple[str, ...] = ()
    entry: str = "entry"        # the entry block's name in phis: its label, or its number
    first_line: int = 0         # the `define` line
    last_line: int = 0          # the closing brace


def type_text(t: LType | None) -> str | None:
    """How a type is written, or None when schedcc keeps only a summary of it (structs)."""
    if t is None or "{" in str(t):
        return None
    return str(t)


def result_type(li: LInstr) -> str | None:
    """The type of the value *li* defines, as written, when the front end can tell."""
    items = [x for x in li.items if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], LType)]
    op = li.op
    if op in ("icmp", "fcmp"):
        return "i1" if not (items and items[0][0].kind == "vector") else None
    if op in ("load", "phi"):
        return type_text(li.extra.get("type"))
    if op == "call":
        return type_text(li.extra.get("type"))
    if op == "getelementptr":
        base = items[0][0] if items else None
        if base is not None and base.kind == "ptr" and base.elem is None:
            return "ptr"
        # a typed pointer (LLVM 14 and before, LightIR) indexed once keeps its type
        return type_text(base) if base is not None and base.kind == "ptr" and len(items) == 2 else None
    if op in ("zext", "sext", "trunc", "bitcast", "ptrtoint", "inttoptr", "addrspacecast", "sitofp", "uitofp",
              "fptosi", "fptoui", "fpext", "fptrunc"):
        return type_text(li.extra.get("to"))
    if op == "select":
        return type_text(items[1][0]) if len(items) > 1 else None
    if items and op not in ("alloca", "extractvalue", "insertvalue", "extractelement", "insertelement",
                            "shufflevector"):
        return type_text(items[0][0])
    return None


def function_info(body: list, params: list, first_line: int, last_line: int) -> FunctionInfo:
    """Phis, types, labels and allocas of one function body (the items of ``define``)."""
    info = FunctionInfo(first_line=first_line, last_line=last_line)
    names = [str(p[2]) for p in params if p[2] is not None]
    info.params = tuple(names)
    for p in params:
        if p[2] is not None:
            info.types[str(p[2])] = type_text(p[1])
    unnamed = sum(1 for n in names if n[1:].isdigit())
    label = None
    for k, item in enumerate(body):
        if isinstance(item, tuple):
            tok = item[1]
            label = str(tok)[:-1].strip('"')
            info.label_lines[label] = tok.line
            continue
        if label is None:  # the entry block has no label: LLVM numbers it after the unnamed parameters
            label = info.entry = str(unnamed) if k == 0 else "entry"
        if item.result is not None:
            info.types[str(item.result)] = result_type(item)
        if item.op == "phi":
            incoming = tuple((v.text if v.kind not in ("gep", "conv", "agg", "asm") else None,
                              lab.text.lstrip("%").strip('"'))
                             for _, v, lab in (x for x in item.items if isinstance(x, tuple) and x[0] == "phi_in"))
            info.phis.setdefault(label, []).append(Phi(str(item.result), info.types[str(item.result)] or "",
                                                       incoming, item.tok.line))
        elif item.op == "alloca":
            info.allocas.setdefault(label, []).append(item.tok.line)
    return info


def check_phis(body: list, info: FunctionInfo, defined: set[str], file: str, name: str) -> None:
    """Refuse a phi whose incoming value is a local defined nowhere, or whose incoming
    block is not a label of the function (the front end's other checks: llvm_check)."""
    labels = set(info.label_lines) | {info.entry}
    for li in body:
        if not isinstance(li, LInstr) or li.op != "phi":
            continue
        for item in li.items:
            if not (isinstance(item, tuple) and item[0] == "phi_in"):
                continue
            _, value, lab = item
            if isinstance(value, Val) and value.kind == "local" and value.text not in defined:
                raise SchedccError(f"'{value.text}' is used but never defined in {name}", _loc(file, value),
                                   focus=value.text, notes=[f"a local value is a parameter of {name} or the "
                                                            "result of one of its instructions"])
            target = lab.text.lstrip("%").strip('"')
            if lab.kind != "local" or target not in labels:
                raise SchedccError(f"phi names undefined block '{lab.text}'", _loc(file, lab), focus=lab.text,
                                   notes=[f"the blocks of {name}: " + ", ".join(sorted(labels))])


def _loc(file: str, v: Val) -> Loc:
    return Loc(file, v.tok.line or 0, v.tok.column or 0)
