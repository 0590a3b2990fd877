"""The loop-kernel section of the report: shown when the modulo scheduler is in the tree.

The modulo scheduler (``schedcc.sched.modulo``, issue 3) is built on another
branch. The report asks for its picture through one of two doors, and skips
the section cleanly, with a visible reason, when neither is there:

1. a function ``report_kernels(program, target)`` in ``schedcc.sched.modulo``
   returning a list of :class:`KernelPicture` (or of ``(title, svg, summary)``
   tuples), the preferred, fast way;
2. otherwise the command line the issue specifies: ``schedcc FILE --target T
   --pipeline --emit-kernel K.svg --format json`` run in-process, whose
   ``loops`` list gives the numbers and whose SVG is the picture.

Only programs with a loop (a block that branches back to itself) ask at all.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

MODULO_MODULE = "schedcc.sched.modulo"


@dataclass
class KernelPicture:
    title: str
    svg: str
    summary: str = ""


def loop_blocks(program) -> list[tuple[str, str]]:
    """(function, label) of every block that branches back to itself."""
    return [(f.name, b.label) for f, b in program.blocks() if b.label in b.successors()]


def modulo_available() -> bool:
    try:
        return importlib.util.find_spec(MODULO_MODULE) is not None
    except (ImportError, ValueError):
        return False


def kernel_pictures(program, target, source_path: str | None) -> tuple[list[KernelPicture], str]:
    """(pictures, note). The note says why there are none, or is empty."""
    loops = loop_blocks(program)
    if not loops:
        return [], ""
    if not modulo_available():
        return [], ("this program has a loop, but this schedcc has no modulo scheduler "
                    f"({MODULO_MODULE} is not installed), so the kernel picture is left out")
    try:
        module = importlib.import_module(MODULO_MODULE)
    except Exception as err:  # a broken plug-in must not break the report
        return [], f"the modulo scheduler could not be loaded ({type(err).__name__}: {err})"
    hook = getattr(module, "report_kernels", None)
    if callable(hook):
        pictures = [p if isinstance(p, KernelPicture) else KernelPicture(*p) for p in hook(program, target)]
        return pictures, "" if pictures else "the modulo scheduler pipelined no loop of this program"
    if source_path is None:
        return [], "the kernel picture needs the program as a file"
    return _via_cli(source_path, target)


def _via_cli(source_path: str, target) -> tuple[list[KernelPicture], str]:
    from ..cli import main  # the documented command line of the modulo scheduler

    target_arg = target.path or target.name
    with tempfile.TemporaryDirectory() as tmp:
        svg_path = Path(tmp) / "kernel.svg"
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main([source_path, "--target", target_arg, "--pipeline", "--emit-kernel",
                               str(svg_path), "--format", "json"])
            except SystemExit as exit_:
                status = exit_.code if isinstance(exit_.code, int) else 2
        if status != 0 or not svg_path.exists():
            first = (err.getvalue().strip().splitlines() or ["no picture written"])[-1]
            return [], f"the modulo scheduler did not draw a kernel: {first}"
        svg = svg_path.read_text()
    summary = ""
    try:
        loops = json.loads(out.getvalue()).get("loops", [])
        summary = "; ".join(
            f"{lp.get('function')} / {lp.get('block')}: " + (
                f"II {lp['ii']} (ResMII {lp.get('res_mii')}, RecMII {lp.get('rec_mii')}), "
                f"{lp.get('stages')} stages" if lp.get("ii") is not None
                else f"not pipelined: {lp.get('reason', '')}")
            for lp in loops)
    except (ValueError, AttributeError, TypeError):
        pass
    return [KernelPicture("software-pipelined loops", svg, summary)], ""
