"""Options for hiding tensor- and expert-parallel communication, shared by ``gen``, ``train`` and ``compare``.

``--tp-comm-overlap K|auto`` cuts each tp/ep collective and the GEMMs around
it into K overlapping chunks (auto: K per layer and the microbatch pairing,
chosen by scheduling the candidates); ``--fb-overlap`` pairs a microbatch's
backward with the next forward; ``--max-activation-gib`` lets ``auto`` keep
a candidate that needs more activation memory than the step as given.
"""

from __future__ import annotations

import argparse

from schedcc.commands.values import option_error, real, whole
from schedcc.errors import SchedccError

PAIRINGS = ("off", "bf", "bf+bb", "bf+fill", "auto")
MAX_CHUNKS = 64
CHUNKS = whole(1, MAX_CHUNKS, "chunks per collective; past 64 each chunk's launch costs more than it hides")


def add_arguments(parser: argparse.ArgumentParser, title: str) -> argparse._ArgumentGroup:
    grp = parser.add_argument_group(title)
    grp.add_argument("--tp-comm-overlap", metavar="K|auto",
                     help="cut each tp/ep collective and the GEMMs around it into K overlapping chunks; "
                          "auto: choose K per layer and the microbatch pairing by scheduling the candidates")
    grp.add_argument("--fb-overlap", choices=PAIRINGS, default=None,
                     help="pair a backward with the next forward of another microbatch (DualPipe-style): "
                          "bf, bf+bb (also the cool-down), bf+fill (weight gradients fill the gaps); "
                          "default: auto with --tp-comm-overlap auto, else off")
    grp.add_argument("--max-activation-gib", type=real(0, 1e6, "GiB per rank; no device holds a petabyte",
                                                      above=True), default=None, metavar="GiB",
                     help="auto may keep a candidate holding up to this much activation memory per rank "
                          "(default: no more than the step as given)")
    return grp


def mode(args: argparse.Namespace) -> tuple[int | str | None, str]:
    """(chunks, pairing) from the options, checked; chunks None: no transformation."""
    text, fb = args.tp_comm_overlap, args.fb_overlap
    if text is None:
        if fb not in (None, "off"):
            raise SchedccError("--fb-overlap needs --tp-comm-overlap (--tp-comm-overlap 1 pairs without chunks)")
        return None, "off"
    if text == "auto":
        return "auto", fb or "auto"
    try:
        return CHUNKS(text), fb or "off"
    except argparse.ArgumentTypeError as err:
        raise option_error(args, "--tp-comm-overlap", f"--tp-comm-overlap: {err} or 'auto'") from None


def decompose(args: argparse.Namespace, step, target, policy: str, iterations: int, groups=None, **options):
    """:func:`schedcc.training.overlap_plan.decompose` with the command line's choice."""
    from schedcc.training.overlap_plan import decompose as run
    chunks, pairing = mode(args)
    limit = args.max_activation_gib * 2**30 if args.max_activation_gib is not None else None
    return run(step, target, chunks, pairing, policy, iterations, groups=groups, memory_limit=limit, **options)


def before_after(ov, step, target, policy: str, iterations: int, groups=None, **options):
    """(the step as given, the transformed step) scheduled: taken from the candidates when
    ``auto`` scheduled them, else scheduled here."""
    from schedcc.training.api import schedule
    before = ov.baseline.result if ov.baseline is not None else schedule(step, target, policy, iterations,
                                                                         groups=groups, **options)
    after = ov.best.result if ov.best is not None else schedule(ov.graph, ov.graph.target, policy, iterations,
                                                                **options)
    return before, after
