"""`schedcc train --tp-comm-overlap auto`'s candidate table: the footnote said "kept: the shortest step"
beside a shorter row that was passed over for its memory (tried as a new user would, issue 18)."""

from __future__ import annotations

from schedcc import training
from schedcc.emit.training import format_overlap
from schedcc.training.overlap_plan import decompose

PROG = training.generate(layers=4, hidden=4096, microbatches=4, tp=4)


def test_the_footnote_says_why_a_shorter_candidate_was_passed_over():
    ov = decompose(PROG, "h100-8x", chunks="auto", pairing="auto", policy="priority")
    best = ov.best
    shorter = [c for c in ov.candidates if c.step_time_us < best.step_time_us]
    assert shorter and all(c.peak_activation_bytes > ov.memory_limit for c in shorter)
    foot = format_overlap(ov).splitlines()[-1]
    assert f"the shortest step within {ov.memory_limit / 2**30:.2f} GiB of peak activations" in foot
    assert f"{shorter[0].label} is shorter but holds" in foot


def test_without_a_memory_limit_in_play_it_is_the_shortest_step():
    ov = decompose(PROG, "h100-8x", chunks="auto", pairing="auto", policy="priority", memory_limit=2**40)
    assert all(c.step_time_us >= ov.best.step_time_us for c in ov.candidates)
    assert format_overlap(ov).splitlines()[-1].startswith("  (* kept: the shortest step; ")
