"""Profiler traces of real runs in (issue 18): replay, exposed communication against HTA, what-ifs,
the command line and its errors.

The traces in tests/data/traces are real gloo runs (tests/data/traces/README.md);
``fresh`` makes new ones with bench/make_traces.py once per session; the GPU
half of the reader runs on the made-up NCCL job of tests/kineto_gpu.py.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from hta_bridge import hta_exposed
from kineto_gpu import make_gpu_job
from schedcc.cli import main
from schedcc.errors import SchedccError
from schedcc.torch.replay import replay
from schedcc.torch.whatif import what_if

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")  # HTA's pandas
ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "traces"
MODELS = ("ddp", "ddp-4ranks", "fsdp", "fsdp-noreshard", "tp")
RANKS = {"ddp-4ranks": 4}
HTA_DATA = DATA / "hta"            # public NCCL traces (tests/data/traces/hta/README.md)
PUBLIC = ("sampled-128", "ddp-rank0")
HAS_HTA = importlib.util.find_spec("hta") is not None
HAS_TORCH = importlib.util.find_spec("torch") is not None
NO_HTA = "needs holistictraceanalysis (pip install 'schedcc[torch]'; `python3 tasks.py test` installs it)"
NO_TORCH = "needs torch (pip install 'schedcc[torch]'; `python3 tasks.py test` installs it)"
REPLAY_TOLERANCE = 0.05    # the goal: replayed step time within 5% of the measured one
HTA_TOLERANCE_PP = 2.0     # exposed communication within 2 percentage points of HTA's


@pytest.fixture(scope="module")
def replays():
    return {m: replay([DATA / m]) for m in MODELS}


@pytest.fixture(scope="module")
def gpu_job(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gpu")
    make_gpu_job(folder, ranks=2, steps=3, layers=4)
    return folder


def run(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("model", MODELS)
def test_replay_within_five_percent_of_measured(replays, model):
    r = replays[model]
    ranks = RANKS.get(model, 2)
    assert len(r.traces) == ranks and r.traces[0].backend == "gloo"
    assert [s.number for s in r.steps] == [2, 3, 4]
    assert abs(r.error) < REPLAY_TOLERANCE and r.worst_step_error < REPLAY_TOLERANCE
    # what the replay found: every collective matched across ranks, launched, and (DDP) waited for
    views = r.step.views
    assert len(views[0].comms) == len(views[1].comms) > 0
    assert all(len(c.peers) == ranks for v in views for c in v.comms)
    assert all(c.after is not None for v in views for c in v.comms)


def test_replay_starts_nothing_at_its_measured_time(replays):
    """The replay is a schedule, not a copy: collectives priced by a thousand times faster links
    (instead of their measured times) make the step shorter, waits and all."""
    from schedcc.torch.replay import schedule_step, step_times
    from schedcc.torch.stepgraph import retarget, with_program
    from schedcc.torch.whatif import _priced
    r = replays["fsdp"]
    bw = r.step.fit.bandwidth
    quick = retarget(r.step, {"link_bw": bw * 1000, "net_bw": bw * 1000, "link_latency": 0, "net_latency": 0})
    timed = schedule_step(quick, "fifo", graph=with_program(quick, _priced(quick, quick.graph.program)))
    assert sum(s.replayed_mean for s in step_times(quick, timed)) < 0.9 * r.replayed_us


@pytest.mark.skipif(not HAS_HTA, reason=NO_HTA)
@pytest.mark.parametrize("model", MODELS)
def test_exposed_communication_matches_hta_on_cpu_runs(replays, model, tmp_path):
    theirs = hta_exposed(DATA / model, tmp_path, cpu=True)
    ours = {e.rank: e.exposed_pct for e in replays[model].measured_exposure}
    assert set(ours) == set(theirs) == set(range(RANKS.get(model, 2)))
    for rank in ours:
        assert abs(ours[rank] - theirs[rank]) < HTA_TOLERANCE_PP, (rank, ours[rank], theirs[rank])


def test_gpu_job_kernels_streams_and_replay(gpu_job):
    r = replay([gpu_job])
    v = r.step.views[0]
    assert len(v.kernels) == 3 * 8 and len(v.comms) == 3 * 4 and len(v.gpu_lanes) == 1
    launched = {id(e) for e in v.trace.flows.values()}
    assert all(id(k.event) in launched for k in v.kernels)      # every kernel found its launch (ac2g flow)
    assert sum(k.after is None for k in v.kernels) == 1          # launched after a piece, but the first
    assert abs(r.error) < REPLAY_TOLERANCE and r.worst_step_error < REPLAY_TOLERANCE
    assert all(20 < e.exposed_pct < 80 for e in r.measured_exposure)  # this job overlaps about half


@pytest.mark.skipif(not HAS_HTA, reason=NO_HTA)
def test_exposed_communication_matches_hta_on_gpu_traces(gpu_job, tmp_path):
    theirs = hta_exposed(gpu_job, tmp_path, cpu=False)
    ours = {e.rank: e.exposed_pct for e in replay([gpu_job]).measured_exposure}
    for rank in ours:
        assert abs(ours[rank] - theirs[rank]) < HTA_TOLERANCE_PP, (rank, ours[rank], theirs[rank])


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """A new trace of a real run: FSDP2 on 2 processes (bench/make_traces.py; DDP on 4 processes is in
    bench/bench_replay.py --fresh: the suite's budget has room for one run)."""
    if not HAS_TORCH:
        pytest.skip(NO_TORCH)
    out = tmp_path_factory.mktemp("fresh")
    subprocess.run(["nice", sys.executable, str(ROOT / "bench" / "make_traces.py"), str(out), "--model", "fsdp",
                    "--ranks", "2", "--steps", "2", "--layers", "2", "--hidden", "64", "--batch", "16"],
                   check=True, capture_output=True, timeout=600)
    return out


def test_fresh_run_replays_and_matches_hta(fresh, tmp_path):
    model = "fsdp"
    r = replay([fresh / model])
    assert len(r.traces) == 2 and all(v.comms for v in r.step.views)
    assert abs(r.error) < REPLAY_TOLERANCE
    if HAS_HTA:
        theirs = hta_exposed(fresh / model, tmp_path, cpu=True)
        for e in r.measured_exposure:
            assert abs(e.exposed_pct - theirs[e.rank]) < HTA_TOLERANCE_PP


def test_what_if_buckets_regroups_the_gradients(replays):
    r = replays["ddp"]
    big = what_if(r, bucket_mb=25)
    small = what_if(r, bucket_mb=0.05)
    comms = lambda w: sum(1 for op in w.timed.run.graph.ops if op.payload["kind"] == "comm")  # noqa: E731
    assert comms(big) < comms(small)          # one 25 MiB bucket per step and rank, many small ones
    assert big.baseline_us == small.baseline_us > 0
    assert big.label == "ddp buckets of 25 MiB" and big.baseline_label == "buckets as run"


def test_what_if_tp_chunks_and_policy(replays):
    w = what_if(replays["tp"], tp_chunks=4)
    assert "tensor-parallel sites in 4 chunks" in w.label and w.step_us > 0
    p = what_if(replays["ddp"], policy="critical-path")
    assert p.baseline_us == replays["ddp"].replayed_us and p.step_us > 0


def test_what_if_errors_name_the_option(replays):
    with pytest.raises(SchedccError, match="--bucket-mb: this trace has no DDP gradient buckets"):
        what_if(replays["fsdp"], bucket_mb=4)
    with pytest.raises(SchedccError, match="--tp-chunks"):
        what_if(replays["ddp"], tp_chunks=1)


def test_cli_replay_text_trace_and_timeline(capsys, tmp_path):
    trace, svg = tmp_path / "w.json", tmp_path / "w.svg"
    code, out, err = run(["replay", DATA / "ddp", "--bucket-mb", "4", "--trace", trace, "--timeline", svg], capsys)
    assert code == 0, err
    assert "measured (ms)   replayed (ms)" in out and "what-if: ddp buckets of 4 MiB" in out
    assert "predicted gain" in out
    doc = json.loads(trace.read_text())
    events = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    assert {e["pid"] for e in events} >= {"rank 0", "rank 1"} or len({e["pid"] for e in events}) == 2
    assert any(e.get("ph") == "s" for e in doc["traceEvents"])     # flow arrows for the waits
    text = svg.read_text()
    assert ("time (ms)" in text or "time (s)" in text) and "step #2" in text and "comm:dp" in text


def test_cli_replay_json(capsys):
    code, out, _ = run(["replay", DATA / "fsdp" / "rank0.json.gz", DATA / "fsdp" / "rank1.json.gz",
                        "--format", "json"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["ranks"] == 2 and len(doc["steps"]) == 3 and abs(doc["error"]) < REPLAY_TOLERANCE
    assert len(doc["exposed_communication"]["measured"]) == 2


def _bad(tmp_path: Path) -> dict[str, list]:
    text = gzip.open(DATA / "ddp" / "rank0.json.gz", "rt").read()
    (tmp_path / "trunc.json").write_text(text[:30000])
    (tmp_path / "trunc.json.gz").write_bytes((DATA / "ddp" / "rank0.json.gz").read_bytes()[:30000])
    (tmp_path / "other.json").write_text('{"schemaVersion": 1}')
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "rank0.json").write_text(text)
    return {"truncated": [tmp_path / "trunc.json"], "truncated gzip": [tmp_path / "trunc.json.gz"],
            "not Kineto": [tmp_path / "other.json"],
            "a list": [tmp_path / "list.json"], "rank missing": [tmp_path / "rank0.json"],
            "rank twice": [tmp_path / "rank0.json", DATA / "ddp" / "rank0.json.gz"],
            "another job": [tmp_path / "rank0.json", DATA / "tp" / "rank1.json.gz"],
            "no such file": [tmp_path / "nothing.json"]}


EXPECTED = {"truncated": "truncated", "truncated gzip": "truncated", "not Kineto": "not a PyTorch profiler (Kineto) trace",
            "a list": "not a PyTorch profiler (Kineto) trace", "rank missing": "no trace of rank 1",
            "rank twice": "rank 0 again", "another job": "the steps do not line up",
            "no such file": "no such file"}


@pytest.mark.parametrize("case", list(EXPECTED))
def test_bad_traces_exit_2_naming_the_file_and_write_nothing(case, tmp_path, capsys):
    files = _bad(tmp_path)[case]
    out = tmp_path / "keep.json"
    out.write_text("mine")
    code, stdout, err = run(["replay", *files, "--trace", out, "--timeline", tmp_path / "t.svg"], capsys)
    assert code == 2 and "Traceback" not in err
    assert EXPECTED[case] in err
    named = files[-1].name if case != "rank twice" else files[0].name
    assert named in err
    assert out.read_text() == "mine" and not (tmp_path / "t.svg").exists()


def test_one_what_if_at_a_time(capsys):
    code, _, err = run(["replay", DATA / "ddp", "--bucket-mb", "4", "--tp-chunks", "2"], capsys)
    assert code == 2 and "one what-if at a time" in err


def test_api_example_prints_what_the_page_says(capsys, monkeypatch):
    import re
    monkeypatch.chdir(ROOT)
    section = (ROOT / "docs" / "api.md").read_text().split("## Profiler traces of real runs", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    (printed,) = re.findall(r"prints\n\n```\n(.*?)```", section, flags=re.S)
    exec(compile(code, "docs/api.md", "exec"), {})
    assert capsys.readouterr().out == printed


def test_step_timelines_read(tmp_path):
    """Issue 18's complaints about the training timelines: raw microsecond axes, no measured step
    marked, legend out of order. A generated step's timeline now reads in ms, brackets the
    measured step among the simulated ones and lists forward before backward before comm."""
    from schedcc import training
    from schedcc.viz.training import write_step_timeline
    step = training.generate(layers=2, hidden=1024, seq=1024, microbatches=2, dp=2, tp=2)
    res = training.schedule(step, "h100-8x", policy="priority", iterations=3)
    path = tmp_path / "step.svg"
    write_step_timeline(str(path), res)
    svg = path.read_text()
    assert "time (ms)" in svg and "measured step:" in svg and "(step 2 of 3 simulated)" in svg
    assert svg.index(">forward<") < svg.index(">backward<") < svg.index(">comm:tp<") < svg.index(">comm:dp<")


# -- issue 18, second pass: a real overlap shows, public NCCL traces, partial jobs -------------------


def test_ddp_overlap_of_all_reduces_with_the_backward_shows(replays):
    """The wide DDP runs overlap their bucket all-reduces (gloo's worker threads) with the backward
    GEMMs on the main thread: most communication is hidden, on every rank. (Counting only leaf
    operators read ~100% exposed here: aten::mm records aten::resolve_conj inside it.)"""
    for model in ("ddp", "ddp-4ranks"):
        exposed = [e.exposed_pct for e in replays[model].measured_exposure]
        assert max(exposed) < 50, (model, exposed)
        assert all(e.overlap_us > 0 for e in replays[model].measured_exposure)


def test_computation_is_operator_time_outside_collective_calls():
    """One backward GEMM and one AccumulateGrad hook that enqueues an all-reduce, with a gloo worker
    running it: the GEMM's whole time is computation, the time in c10d::allreduce_ is not."""
    from schedcc.torch.exposed import measured
    from schedcc.torch.kineto import parse_trace
    X = lambda name, ts, dur, tid=1, cat="cpu_op": {"ph": "X", "cat": cat, "name": name, "pid": 1,  # noqa: E731
                                                    "tid": tid, "ts": ts, "dur": dur}
    doc = {"distributedInfo": {"rank": 0, "world_size": 2, "backend": "gloo"}, "traceEvents": [
        X("ProfilerStep#1", 0, 1000, cat="user_annotation"), X("ProfilerStep#2", 1000, 10, cat="user_annotation"),
        X("autograd::engine::evaluate_function: AccumulateGrad", 10, 100),
        X("c10d::allreduce_", 20, 90),
        X("autograd::engine::evaluate_function: AddmmBackward0", 120, 400),
        X("aten::mm", 130, 380), X("aten::resolve_conj", 131, 0),
        X("gloo:all_reduce", 100, 300, tid=2, cat="user_annotation")]}
    e = measured(parse_trace(json.dumps(doc), "rank0.json"))
    # comm [100, 400); computation [10, 20) and [120, 520): overlapped [120, 400)
    assert (e.comm_us, e.overlap_us) == (300.0, 280.0) and round(e.exposed_pct, 2) == 6.67


@pytest.fixture(scope="module")
def public():
    return {name: replay([HTA_DATA / name], subset=True) for name in PUBLIC}


@pytest.mark.parametrize("name", PUBLIC)
def test_public_nccl_traces_replay_within_five_percent(public, name):
    r = public[name]
    assert r.traces[0].backend == "nccl" and r.traces[0].world > len(r.traces)
    assert all(v.kernels and v.comms for v in r.step.views)
    assert abs(r.error) < REPLAY_TOLERANCE and r.worst_step_error < REPLAY_TOLERANCE


@pytest.mark.skipif(not HAS_HTA, reason=NO_HTA)
@pytest.mark.parametrize("name", PUBLIC)
def test_public_nccl_traces_exposed_matches_hta(public, name, tmp_path):
    theirs = hta_exposed(HTA_DATA / name, tmp_path, cpu=False)
    ours = {e.rank: e.exposed_pct for e in public[name].measured_exposure}
    assert set(ours) == set(theirs)
    for rank in ours:
        assert abs(ours[rank] - theirs[rank]) < HTA_TOLERANCE_PP, (rank, ours[rank], theirs[rank])


def test_some_ranks_of_a_larger_job_need_subset(capsys):
    code, _, err = run(["replay", HTA_DATA / "sampled-128"], capsys)
    assert code == 2 and "the job had 128 ranks, no trace of rank 2-127" in err and "--subset" in err
    assert "rank-0.json.gz" in err and "Traceback" not in err
    code, out, err = run(["replay", HTA_DATA / "sampled-128", "--subset"], capsys)
    assert code == 0, err
    assert "2 of 128 ranks (0, 1; --subset) (nccl)" in out and "bandwidth unknown" in out


def _plain(doc_path: Path, info) -> str:
    doc = json.loads(gzip.open(doc_path, "rt").read())
    if info is None:
        doc.pop("distributedInfo")
    else:
        doc["distributedInfo"] = info
    return json.dumps(doc)


def test_rank_files_without_world_size_or_distributed_info(tmp_path, capsys):
    """Older profilers write no world_size; hand-made files may have no distributedInfo at all."""
    src = [DATA / "ddp" / f"rank{r}.json.gz" for r in (0, 1)]
    no_world = tmp_path / "no_world"
    no_world.mkdir()
    for r, p in enumerate(src):
        (no_world / f"r{r}.json").write_text(_plain(p, {"rank": r, "backend": "gloo"}))
    r = replay([no_world])
    assert [t.rank for t in r.traces] == [0, 1] and r.traces[0].world == 2 and abs(r.error) < REPLAY_TOLERANCE
    single = tmp_path / "single.json"
    single.write_text(_plain(src[1], {"rank": 1, "backend": "gloo"}))
    code, _, err = run(["replay", single], capsys)           # rank 1 alone: the job had at least 2 ranks
    assert code == 2 and "no trace of rank 0" in err and "single.json" in err
    code, out, err = run(["replay", single, "--subset"], capsys)
    assert code == 0, err
    named = tmp_path / "named"
    named.mkdir()
    for r, p in enumerate(src):
        (named / f"trainer-rank-{r}.json").write_text(_plain(p, None))
    assert [t.rank for t in replay([named]).traces] == [0, 1]
    bad = tmp_path / "bad"
    bad.mkdir()
    for r, p in enumerate(src):
        (bad / f"t{r}.json").write_text(_plain(p, None))
    code, _, err = run(["replay", bad, "--trace", tmp_path / "w.json"], capsys)
    assert code == 2 and "t0.json: no distributedInfo" in err and not (tmp_path / "w.json").exists()


def test_mismatched_ranks_name_the_file(tmp_path, capsys):
    """Rank 1 of a 4-rank job with rank 0 of a 2-rank job; a rank 0 file twice under two names."""
    code, _, err = run(["replay", DATA / "ddp" / "rank0.json.gz", DATA / "ddp-4ranks" / "rank1.json.gz"], capsys)
    assert code == 2 and "not one job's ranks" in err and "ddp-4ranks/rank1.json.gz" in err


def test_what_ifs_on_a_public_gpu_trace(public):
    """The DDP GPU trace was profiled without shapes: re-bucketing says so; a policy what-if runs."""
    r = public["ddp-rank0"]
    with pytest.raises(SchedccError, match="--bucket-mb: the trace does not say how large the gradients are"):
        what_if(r, bucket_mb=25)
    w = what_if(r, policy="priority", partition_mb=4)
    assert w.priced and w.replayed_us == r.replayed_us and w.step_us > 0
