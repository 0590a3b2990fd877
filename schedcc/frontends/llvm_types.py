"""LLVM types and their sizes, for the LLVM IR front end (:mod:`schedcc.frontends.llvm_ir`).

:class:`Layout` assumes a 64-bit target with natural alignment (LoongArch64,
x86-64): what clang emits for the course's targets. Sizes are what a load or
store touches; ``getelementptr`` offsets step by these sizes.

Example::

    >>> t = LType("struct", fields=(LType("int", bits=32), LType("int", bits=64)))
    >>> Layout({}).size(t), Layout({}).field_offset(t, 1)
    (16, 8)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LType:
    kind: str                      # int, float, ptr, void, label, named, array, vector, struct, other
    bits: int = 0                  # int width, float size in bits
    elem: "LType | None" = None
    count: int = 0
    fields: tuple["LType", ...] = ()
    packed: bool = False
    name: str = ""

    def __str__(self) -> str:
        return self.name or self.kind


_FLOAT_BITS = {"half": 16, "bfloat": 16, "float": 32, "double": 64, "x86_fp80": 128, "fp128": 128,
               "ppc_fp128": 128}


def _align(offset: int, align: int) -> int:
    return (offset + align - 1) // align * align


class Layout:
    """Sizes and alignments for a 64-bit target (LoongArch64, x86-64), natural alignment."""

    def __init__(self, named: dict[str, LType]):
        self.named = named

    def resolve(self, t: LType) -> LType:
        seen = 0
        while t.kind == "named":
            if t.name not in self.named or seen > 100:
                raise KeyError(t.name)
            t, seen = self.named[t.name], seen + 1
        return t

    def size_align(self, t: LType) -> tuple[int, int]:
        t = self.resolve(t)
        if t.kind == "int":
            size = max(1, (t.bits + 7) // 8)
            size = 1 << (size - 1).bit_length()
            return size, min(size, 16)
        if t.kind == "float":
            size = t.bits // 8
            return size, size
        if t.kind == "ptr":
            return 8, 8
        if t.kind in ("array", "vector"):
            assert t.elem is not None
            es, ea = self.size_align(t.elem)
            return es * t.count, ea
        if t.kind == "struct":
            off, align = 0, 1
            for f in t.fields:
                fs, fa = self.size_align(f)
                fa = 1 if t.packed else fa
                off = _align(off, fa) + fs
                align = max(align, fa)
            return _align(off, align), align
        raise KeyError(str(t))

    def size(self, t: LType) -> int:
        return self.size_align(t)[0]

    def field_offset(self, t: LType, index: int) -> int:
        t = self.resolve(t)
        off = 0
        for k, f in enumerate(t.fields):
            fs, fa = self.size_align(f)
            off = _align(off, 1 if t.packed else fa)
            if k == index:
                return off
            off += fs
        raise KeyError(index)
