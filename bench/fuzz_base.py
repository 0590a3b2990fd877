"""The fuzz's common ground (issue 21): a :class:`Case`, the limits and classes, and the seed
files every case starts from. ``bench/fuzz_cases.py`` generates the cases."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CPU_LIMIT = 20          # seconds of CPU per case
MEMORY_LIMIT = 2 << 30  # bytes of address space per case

CLASSES = ("ok", "traceback", "internal", "over time", "over memory", "accepted invalid", "unlocated",
           "other exit")


@dataclass
class Case:
    """One run: ``schedcc ARGV`` in a fresh directory holding *files*."""

    family: str
    argv: list[str]
    files: dict[str, bytes] = field(default_factory=dict)
    invalid: bool = False  # clearly invalid input: exit 0 would be wrong
    slow: bool = False     # not for the suite's sample (seconds, or a subprocess is needed)
    note: str = ""         # what the files hold that the command line does not show (``latency = 0``)

    @property
    def name(self) -> str:
        text = " ".join(self.argv)
        text = text if len(text) < 160 else text[:157] + "..."
        return f"{text} [{self.note[:80]}]" if self.note else text


# -- seeds -------------------------------------------------------------------------------------------------

def _read(rel: str) -> bytes:
    return (ROOT / rel).read_bytes()


def _step_ir() -> bytes:
    """A small training step with tensor and data parallelism (what ``schedcc gen`` writes)."""
    from schedcc.ir import print_program
    from schedcc.training.generator import TransformerConfig, generate_program
    cfg = TransformerConfig(layers=2, hidden=256, seq=128, micro_batch=1, microbatches=1, dp=2, tp=2, heads=4,
                            vocab=1000)
    return print_program(generate_program(cfg)).encode()


def seeds() -> dict[str, bytes]:
    return {
        "p.ir": _read("examples/lecture.ir"),
        "loop.ir": _read("examples/loops/dot.ir"),
        "k.ir": _read("examples/ascend/vector_add.ir"),
        "mm.ir": _read("examples/ascend/matmul.ir"),
        "f.ll": _read("examples/frontends/kernel.ll"),
        "f.s": _read("examples/frontends/kernel.s"),
        "step.ir": _step_ir(),
        "deps.ir": _read("docs/assignments/01-dependences/program.ir"),
        "deps.txt": _read("docs/assignments/01-dependences/my-deps.txt"),
        "mips4.toml": _read("targets/mips4.toml"),
        "ascend.toml": _read("targets/ascend910b.toml"),
        "h100.toml": _read("targets/h100-8x.toml"),
        "dgx.toml": _read("targets/dgx-h100.toml"),
    }


