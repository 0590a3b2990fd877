"""torch.fx graphs reordered: schedcc against Inductor's reordering under the same estimates (issue 18).

For each of four families of real PyTorch programs (tests/torch_models.py: a GPT
block stack with FSDP2, the same with TP+SP, DDP with Inductor's bucketing, an
MoE layer with all-to-all) at two sizes, captured on CPU with the fake process
group (4 ranks) and functionalized (the graph Inductor's post-grad passes
see), it runs under schedcc's cluster cost model and under Inductor's own
estimates (roofline, NCCL model) the original order, Inductor's FX overlap
scheduler and its three older passes (torch._inductor.comms), and schedcc's
order, and prints the predicted step time and exposed communication of each.
Every schedcc-reordered graph is linted and, with --run, run against the
original on random inputs (collectives stood in by schedcc.torch.spmd).
Beside them, the lower bound on the exposed communication of every order
(schedcc.torch.fx_bound) and the share of the gap between Inductor's order and
the bound that schedcc's order closes, and the lower bound for every order of
every splitting or re-bucketing of the collectives (schedcc.torch.fx_volume).

Then a ~10,000-node graph (FSDP2, 24 blocks) is reordered with
schedcc.torch.reorder; CPU time reported.

    nice .venv/bin/python bench/bench_torch_fx.py [--sizes small,large] [--run [--threads 1]]
        [--json out.json] [--save DIR | --saved DIR] [--bounds-only] [--check-only [--check-rebucket EST]] [--bucketer]
        [--merge A.json ...]

(--saved reads the graphs a --save run exported, torch.export.save, instead of
capturing them again: the exported graph is the captured one re-traced, a few
percent more nodes. --bounds-only prints each graph's bounds under both
estimates and nothing else: a second or so per graph. --merge A.json B.json
prints the table and medians of earlier --json runs together; with --saved DIR,
both bounds computed again from the saved graphs. --check-only reorders each
graph and runs it against the original, nothing else (--check-rebucket EST:
re-bucketed under those estimates). --bucketer, with
--saved, runs Inductor's overlap scheduler with its collective bucketing
(the overlap-preserving bucketer) and schedcc with re-bucketing on each saved
graph under both estimates, nothing else.)

The "bound, any bucketing" column is schedcc.torch.fx_volume's: no order of
any splitting, merging or re-bucketing of the graph's collectives (same bytes
on the same streams, at zero per-call latency, the kernels unsplit) exposes
less; the summary's medians of its reductions are the most a graph change of
that kind could reach on the median graph.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import torch_models as tm  # noqa: E402

from schedcc.target import load_target  # noqa: E402
from schedcc.torch import spmd  # noqa: E402
from schedcc.torch.fx_bound import step_bound  # noqa: E402
from schedcc.torch.fx_graph import build_step  # noqa: E402
from schedcc.torch.fx_reorder import durations, reorder  # noqa: E402
from schedcc.torch.fx_volume import step_volume_bound  # noqa: E402
from schedcc.torch.inductor import compare_orders  # noqa: E402

TARGET = "h100-8x"
REBUCKET = "schedcc+rebucket"


def check_only(family: str, size: str, saved: str | None, rebucket: str | None = None) -> str:
    """*family*-*size* reordered by schedcc (with *rebucket*, re-bucketed under those
    estimates) and run against the original, nothing else."""
    t = time.process_time()
    groups = None
    if saved:
        import torch
        gm, groups = torch.export.load(str(Path(saved) / f"{family}-{size}.pt2")).graph_module, {"0": tm.WORLD}
    else:
        gm, _ = tm.capture_family(family, size, functional=True)
    load_s = time.process_time() - t
    original = copy.deepcopy(gm)
    t = time.process_time()
    r = reorder(gm, TARGET, groups=groups, **({"estimates": rebucket, "rebucket": True} if rebucket else {}))
    gm.graph.lint()
    reorder_s = time.process_time() - t
    t = time.process_time()
    diffs = spmd.compare(original, gm, default_size=tm.WORLD)
    return (f"{family} {size}: {sum(1 for _ in gm.graph.nodes)} nodes, load {load_s:.1f} s, reorder and lint "
            f"{reorder_s:.1f} s, run {time.process_time() - t:.1f} s CPU, mismatches {len(diffs)}"
            + (f", re-bucketed under {rebucket}'s estimates: {'; '.join(r.rebucketed) or 'nothing'}" if rebucket else "")
            + (f" ({'; '.join(diffs[:5])})" if diffs else ""))


def one(family: str, size: str, run: bool, saved: str | None = None, save: str | None = None) -> dict:
    t = time.process_time()
    groups = None
    if saved:  # the graph as --save wrote it: exported, its process group named "0"
        import torch
        gm, groups = torch.export.load(str(Path(saved) / f"{family}-{size}.pt2")).graph_module, {"0": tm.WORLD}
    else:
        gm, inputs = tm.capture_family(family, size, functional=True)
        if save:
            import torch
            from schedcc.torch.capture import export
            torch.export.save(export(gm, inputs), str(Path(save) / f"{family}-{size}.pt2"))
    capture_s = time.process_time() - t
    step = build_step(gm, load_target(TARGET), groups)
    rows = compare_orders(step)
    t = time.process_time()
    bounds = {est: step_bound(step, durations(step, est)).to_json() for est in ("schedcc", "inductor")}
    for est in ("schedcc", "inductor"):
        bounds[est]["volume"] = step_volume_bound(step, durations(step, est), est).to_json()
    bound_s = time.process_time() - t
    original = copy.deepcopy(gm)
    t = time.process_time()
    reorder(gm, TARGET, groups=groups)
    reorder_s = time.process_time() - t
    gm.graph.lint()
    t = time.process_time()
    diffs = spmd.compare(original, gm, default_size=tm.WORLD) if run else None
    run_s = time.process_time() - t if run else None
    t = time.process_time()
    for est in ("schedcc", "inductor"):  # schedcc's order of the graph re-bucketed (schedcc.torch.rebucket)
        changed = copy.deepcopy(original)
        r = reorder(changed, TARGET, groups=groups, estimates=est, rebucket=True)
        changed.graph.lint()
        rows.append({"estimates": est, "order": REBUCKET, "step_us": r.after.step_time_us,
                     "exposed_us": r.after.exposed_comm_us, "comm_us": r.after.comm_us, "error": None,
                     "rebucketed": list(r.rebucketed)})
        if run and r.rebucketed:
            diffs += [f"rebucketed ({est}): {d}" for d in spmd.compare(original, changed, default_size=tm.WORLD)]
    rebucket_s = time.process_time() - t
    return {"rebucket_s": rebucket_s, "family": family, "size": size, "nodes": len(step), "collectives": len(step.collectives()),
            "capture_s": capture_s, "reorder_s": reorder_s, "bound_s": bound_s, "run_s": run_s, "rows": rows,
            "bounds": bounds, "mismatches": diffs}


def best_peer(rows: list[dict], est: str) -> dict:
    peers = [r for r in rows if r["estimates"] == est and r["order"] not in ("original", "schedcc", REBUCKET)
             and r["error"] is None]
    return min(peers, key=lambda r: (r["step_us"], r["exposed_us"]))


def row_of(rows, est, order):
    return next(r for r in rows if r["estimates"] == est and r["order"] == order)


def closed(ref: dict, mine: dict, bound: float) -> str:
    """The share of the gap between *ref*'s exposed communication and the bound that *mine* closes."""
    if ref["error"] or ref["exposed_us"] - bound < 0.05:
        return "at bound" if not ref["error"] else "-"
    return f"{(ref['exposed_us'] - mine['exposed_us']) / (ref['exposed_us'] - bound) * 100:.0f}%"


def table(results: list[dict]) -> str:
    out = ["| graph | nodes | estimates | original step / exposed (us) | overlap scheduler | best comms pass "
           "| schedcc | bound (exposed) | schedcc vs overlap sched. (exposed) | vs best pass (exposed) "
           "| gap closed vs overlap sched. | vs best pass | bound, any bucketing | its reduction vs overlap sched. "
           "| vs best pass | schedcc + re-bucketing | its exposed vs overlap sched. | vs best pass | buckets changed |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for res in results:
        for est in ("schedcc", "inductor"):
            rows = res["rows"]
            o, ov, s = row_of(rows, est, "original"), row_of(rows, est, "overlap-scheduler"), \
                row_of(rows, est, "schedcc")
            bp = best_peer([r for r in rows if r["order"] != "overlap-scheduler"], est)

            def cell(r):
                return "invalid" if r["error"] else f"{r['step_us']:.0f} / {r['exposed_us']:.0f}"

            def rel(r, mine=s):
                if r["error"] or not r["exposed_us"]:
                    return "-"
                return f"{(mine['exposed_us'] - r['exposed_us']) / r['exposed_us'] * 100:+.0f}%"
            rb = next((r for r in rows if r["estimates"] == est and r["order"] == REBUCKET), None)
            rb_cells = ("- | - | - | -" if rb is None else
                        f"{cell(rb)} | {rel(ov, rb)} | {rel(bp, rb)} | {'; '.join(rb['rebucketed']) or 'none'}")
            bound = res["bounds"][est]["exposed_us"]
            vol = volume_of(res, est)

            def cut(r):
                if vol is None or r["error"] or not r["exposed_us"]:
                    return "-"
                return f"{(vol - r['exposed_us']) / r['exposed_us'] * 100:+.0f}%"
            out.append(f"| {res['family']} {res['size']} | {res['nodes']} | {est} | {cell(o)} | {cell(ov)} | "
                       f"{cell(bp)} ({bp['order']}) | {cell(s)} | {bound:.0f} | {rel(ov)} | {rel(bp)} | "
                       f"{closed(ov, s, bound)} | {closed(bp, s, bound)} | "
                       f"{'-' if vol is None else f'{vol:.0f}'} | {cut(ov)} | {cut(bp)} | {rb_cells} |")
    return "\n".join(out)


def volume_of(res: dict, est: str) -> float | None:
    """The bound for any order and any splitting or bucketing (schedcc.torch.fx_volume), if measured."""
    v = res["bounds"][est].get("volume")
    return None if v is None else v["exposed_us"]


def summary(results: list[dict]) -> dict:
    """Medians over the graph x estimate pairs whose reference exposes some communication. A
    median is monotone in each value, so the median of the bound's reductions is the largest
    median reduction any order could reach."""
    worse_ov, worse_any, rel_ov, rel_any, best_ov, best_any = 0, 0, [], [], [], []
    vol_ov, vol_any, rb_ov, rb_any, rb_worse = [], [], [], [], 0
    for res in results:
        for est in ("schedcc", "inductor"):
            rows = res["rows"]
            s, ov = row_of(rows, est, "schedcc"), row_of(rows, est, "overlap-scheduler")
            bp = best_peer(rows, est)
            bound = res["bounds"][est]["exposed_us"]
            vol = volume_of(res, est)
            if ov["error"] is None and ov["exposed_us"]:
                best_ov.append((bound - ov["exposed_us"]) / ov["exposed_us"])
                if vol is not None:
                    vol_ov.append((vol - ov["exposed_us"]) / ov["exposed_us"])
            if bp["exposed_us"]:
                best_any.append((bound - bp["exposed_us"]) / bp["exposed_us"])
                if vol is not None:
                    vol_any.append((vol - bp["exposed_us"]) / bp["exposed_us"])
            if ov["error"] is None and s["step_us"] > ov["step_us"] + 1e-9:
                worse_ov += 1
            if s["step_us"] > bp["step_us"] + 1e-9:
                worse_any += 1
            if ov["error"] is None and ov["exposed_us"]:
                rel_ov.append((s["exposed_us"] - ov["exposed_us"]) / ov["exposed_us"])
            if bp["exposed_us"]:
                rel_any.append((s["exposed_us"] - bp["exposed_us"]) / bp["exposed_us"])
            rb = next((r for r in rows if r["estimates"] == est and r["order"] == REBUCKET), None)
            if rb is not None:
                rb_worse += rb["step_us"] > s["step_us"] + 1e-9
                if ov["error"] is None and ov["exposed_us"]:
                    rb_ov.append((rb["exposed_us"] - ov["exposed_us"]) / ov["exposed_us"])
                if bp["exposed_us"]:
                    rb_any.append((rb["exposed_us"] - bp["exposed_us"]) / bp["exposed_us"])
    return {"graphs x estimates": 2 * len(results),
            "schedcc slower than the overlap scheduler": worse_ov,
            "schedcc slower than the best Inductor pass": worse_any,
            "median exposed vs overlap scheduler": statistics.median(rel_ov) if rel_ov else None,
            "median exposed vs best Inductor pass": statistics.median(rel_any) if rel_any else None,
            "median of the bound vs overlap scheduler (no order can do better)":
                statistics.median(best_ov) if best_ov else None,
            "median of the bound vs best Inductor pass (no order can do better)":
                statistics.median(best_any) if best_any else None,
            "median of the bound for any bucketing vs overlap scheduler (no order of any splitting can do better)":
                statistics.median(vol_ov) if vol_ov else None,
            "median of the bound for any bucketing vs best Inductor pass":
                statistics.median(vol_any) if vol_any else None,
            "median exposed of schedcc + re-bucketing vs overlap scheduler":
                statistics.median(rb_ov) if rb_ov else None,
            "median exposed of schedcc + re-bucketing vs best Inductor pass":
                statistics.median(rb_any) if rb_any else None,
            "schedcc + re-bucketing slower than schedcc's order": rb_worse,
            "mismatches": (sum(len(r["mismatches"]) for r in results)
                           if all(r["mismatches"] is not None for r in results) else "not run (--run)")}


def big_graph() -> dict:
    size = tm.Size(layers=24, hidden=256, heads=4, batch=2, seq=256)
    gm, _ = tm.capture_family("fsdp", size, functional=True)
    nodes = sum(1 for _ in gm.graph.nodes)
    t = time.process_time()
    r = reorder(gm, TARGET)
    seconds = time.process_time() - t
    gm.graph.lint()
    return {"nodes": nodes, "scheduled": len(r.order), "reorder_cpu_s": seconds,
            "before_us": r.before.step_time_us, "after_us": r.after.step_time_us}


def graph_bounds(family: str, size: str, saved: str) -> dict:
    """Both bounds of a saved graph under both estimates, as one() records them."""
    import torch
    gm = torch.export.load(str(Path(saved) / f"{family}-{size}.pt2")).graph_module
    step = build_step(gm, load_target(TARGET), {"0": tm.WORLD})
    out = {}
    for est in ("schedcc", "inductor"):
        dur = durations(step, est)
        out[est] = {**step_bound(step, dur).to_json(), "volume": step_volume_bound(step, dur, est).to_json()}
    return out


def bounds_only(family: str, size: str, saved: str | None) -> list[str]:
    """Lines of *family*-*size*'s lower bound under both estimates, nothing run."""
    groups = None
    if saved:
        import torch
        gm, groups = torch.export.load(str(Path(saved) / f"{family}-{size}.pt2")).graph_module, {"0": tm.WORLD}
    else:
        gm, _ = tm.capture_family(family, size, functional=True)
    step = build_step(gm, load_target(TARGET), groups)
    out = []
    for est in ("schedcc", "inductor"):
        t = time.process_time()
        b = step_bound(step, durations(step, est))
        out.append(f"{family} {size} ({len(step)} nodes), {est} estimates: exposed >= {b.exposed_us:.1f} us, "
                   f"step >= {b.step_us:.1f} us ({b.argument}; {time.process_time() - t:.2f} s CPU)")
        t = time.process_time()
        v = step_volume_bound(step, durations(step, est), est)
        out.append(f"  any order of any splitting or bucketing: exposed >= {v.exposed_us:.1f} us ({v.argument}; "
                   f"{time.process_time() - t:.2f} s CPU)")
    return out


def bucketer(family: str, size: str, saved: str) -> list[str]:
    """Inductor's overlap scheduler with its bucketer against schedcc with re-bucketing, on a saved
    graph under both estimates (each graph changed on a copy, run in its own order)."""
    import torch
    from schedcc.torch.inductor import overlap_bucketed
    gm = torch.export.load(str(Path(saved) / f"{family}-{size}.pt2")).graph_module
    step = build_step(gm, load_target(TARGET), {"0": tm.WORLD})
    out = []
    for est in ("schedcc", "inductor"):
        t = time.process_time()
        ib = overlap_bucketed(step, est)
        ib_s = time.process_time() - t
        t = time.process_time()
        r = reorder(copy.deepcopy(gm), TARGET, groups={"0": tm.WORLD}, estimates=est, rebucket=True)
        out.append(f"{family} {size}, {est} estimates: overlap scheduler + bucketer {ib.step_time_us:.1f} / "
                   f"{ib.exposed_comm_us:.1f} us ({ib_s:.1f} s CPU); schedcc + re-bucketing "
                   f"{r.after.step_time_us:.1f} / {r.after.exposed_comm_us:.1f} us ({time.process_time() - t:.1f} s CPU;"
                   f" {'; '.join(r.rebucketed) or 'no bucket changed'})")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="small,large")
    ap.add_argument("--families", default=",".join(tm.FAMILIES))
    ap.add_argument("--run", action="store_true", help="run every reordered graph against the original")
    ap.add_argument("--no-big", action="store_true", help="skip the 10,000-node graph")
    ap.add_argument("--json", help="write the results as JSON")
    ap.add_argument("--save", metavar="DIR", help="also write each captured graph as DIR/FAMILY-SIZE.pt2")
    ap.add_argument("--saved", metavar="DIR", help="read the graphs --save wrote instead of capturing them")
    ap.add_argument("--bounds-only", action="store_true", help="print each graph's lower bound and stop")
    ap.add_argument("--check-only", action="store_true",
                    help="only reorder each graph and run it against the original (no Inductor passes, no bounds)")
    ap.add_argument("--check-rebucket", choices=("schedcc", "inductor"),
                    help="with --check-only: reorder with re-bucketing under these estimates")
    ap.add_argument("--bucketer", action="store_true",
                    help="with --saved: Inductor's overlap scheduler with its bucketer against schedcc with "
                         "re-bucketing, nothing else")
    ap.add_argument("--merge", nargs="+", metavar="JSON",
                    help="print the table and summary of earlier --json runs together, nothing run")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch's intra-op threads for --run (default 1: the machine is shared)")
    args = ap.parse_args()
    if args.run or args.check_only:
        import torch
        torch.set_num_threads(args.threads)
    if args.check_only:
        for size in args.sizes.split(","):
            for family in args.families.split(","):
                print(check_only(family, size, args.saved, args.check_rebucket), flush=True)
        return 0
    if args.merge:
        results = [r for f in args.merge for r in json.loads(Path(f).read_text())["results"]]
        if args.saved:  # the bounds again, from the saved graphs, with this schedcc
            for r in results:
                r["bounds"] = graph_bounds(r["family"], r["size"], args.saved)
        print(table(results))
        print()
        for k, v in summary(results).items():
            print(f"{k}: {v:.1%}" if isinstance(v, float) else f"{k}: {v}")
        return 0
    if args.bucketer:
        for size in args.sizes.split(","):
            for family in args.families.split(","):
                print("\n".join(bucketer(family, size, args.saved)), flush=True)
        return 0
    if args.bounds_only:
        for size in args.sizes.split(","):
            for family in args.families.split(","):
                print("\n".join(bounds_only(family, size, args.saved)), flush=True)
        return 0
    results = []
    for size in args.sizes.split(","):
        for family in args.families.split(","):
            res = one(family, size, args.run, args.saved, args.save)
            results.append(res)
            print(f"{family} {size}: {res['nodes']} nodes, {res['collectives']} collectives, capture "
                  f"{res['capture_s']:.1f} s, reorder {res['reorder_s']:.2f} s, bound {res['bound_s']:.2f} s, "
                  f"re-bucketing (both estimates) {res['rebucket_s']:.2f} s CPU"
                  + (f", run {res['run_s']:.1f} s CPU, mismatches {len(res['mismatches'])}"
                     if res["mismatches"] is not None else ""),
                  flush=True)
    print()
    print(table(results))
    print()
    summ = summary(results)
    for k, v in summ.items():
        print(f"{k}: {v:.1%}" if isinstance(v, float) else f"{k}: {v}")
    big = None if args.no_big else big_graph()
    if big:
        print(f"\n{big['nodes']}-node graph ({big['scheduled']} scheduled): reordered in "
              f"{big['reorder_cpu_s']:.2f} s CPU, step {big['before_us']:.0f} -> {big['after_us']:.0f} us")
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "summary": summ, "big": big}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
