"""What a user opens after `schedcc replay ... --trace --timeline` (issue 18): every what-if's schedule is a
Chrome trace Perfetto and chrome://tracing load (complete events with numeric times, flow arrows bound to a
slice on their thread, each id a start and a finish), and the timeline reads (ms or s axis, forward and backward
in clearly different colours, the legend in order, the profiled steps marked)."""

import json
import re
from pathlib import Path

import pytest

from schedcc.cli import main

DATA = Path(__file__).resolve().parent / "data" / "traces"
WHAT_IFS = {"buckets": ["ddp", "--bucket-mb", "25"], "policy": ["ddp", "--policy", "critical-path"],
            "tp-chunks": ["tp", "--tp-chunks", "4"]}


def _rgb(colour: str) -> tuple[int, ...]:
    return tuple(int(colour[k:k + 2], 16) for k in (1, 3, 5))


@pytest.mark.parametrize("case", list(WHAT_IFS))
def test_what_if_schedule_is_a_valid_chrome_trace_and_its_timeline_reads(case, tmp_path, capsys):
    model, *option = WHAT_IFS[case]
    trace, svg = tmp_path / "w.json", tmp_path / "w.svg"
    assert main(["replay", str(DATA / model), *option, "--trace", str(trace), "--timeline", str(svg)]) == 0
    assert "predicted gain" in capsys.readouterr().out
    doc = json.loads(trace.read_text())
    events = doc["traceEvents"]
    slices: dict = {}
    for e in events:
        assert e["ph"] in ("X", "M", "s", "f"), e
        if e["ph"] == "X":
            assert isinstance(e["name"], str) and e["dur"] >= 0 and e["ts"] >= 0, e
            slices.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    flows: dict = {}
    for e in events:
        if e["ph"] in "sf":
            flows.setdefault(e["id"], []).append(e["ph"])
            assert any(a <= e["ts"] <= b for a, b in slices[(e["pid"], e["tid"])]), e  # bound to a slice
    assert flows and all(sorted(v) == ["f", "s"] for v in flows.values())
    text = svg.read_text()
    assert re.search(r">time \((ms|s)\)<", text) and ">step #2<" in text
    legend = re.findall(r'<rect [^>]*fill="(#[0-9a-f]{6})"/>\s*<text [^>]*>([^<]+)</text>', text)
    names = [n for _, n in legend]
    assert names.index("forward") < names.index("backward") < names.index("optimizer")
    assert names[-1].startswith("comm:")
    colour = dict((n, c) for c, n in legend)
    assert sum(abs(a - b) for a, b in zip(_rgb(colour["forward"]), _rgb(colour["backward"]))) > 250
