"""The cost model against published runs: predict every row of ``validation.toml``.

Each row of ``schedcc/planner/validation.toml`` is a measured training run from
a paper or report: its model, cluster, GPU count, batch, the configuration
its source states (``fix``), the software that ran it (``framework``: the
search is limited to what it could do and priced as it runs it,
:mod:`schedcc.planner.frameworks`) and what the source says it did
differently from that software's defaults (``settings``), and the published
number in the source's own metric:

* ``tflops_sc21``: TFLOP/s per GPU by Narayanan et al.'s Eq. 3,
  ``96 B s l h^2 (1 + s/(6h) + V/(16 l h))`` per step (recomputation counted);
* ``iteration_s``: seconds per step;
* ``tflops_model``: model TFLOP/s per GPU (:meth:`ModelSpec.model_flops`);
* ``tokens_per_gpu``: tokens per second per GPU.

:func:`run_row` plans the row with the planner (the pinned dimensions fixed,
the rest searched) and converts the best candidate's step time into the
source's metric. The error is the predicted throughput over the published
one, minus 1 (positive: the model is optimistic). :func:`command` gives the
``schedcc plan`` command line that reproduces a row; ``python -m
schedcc.planner.validation`` prints the table of ``docs/validation.md``.

Example::

    >>> rows = load_rows()
    >>> len(rows) >= 10, len({r["source"] for r in rows}) >= 2
    (True, True)
    >>> command(rows[0]).split(" --gpus")[0]
    'schedcc plan transformer --layers 24 --hidden 2304 --heads 24 --seq 2048 --vocab 51200 --dropout --tied-embeddings'
"""

from __future__ import annotations

import statistics
import sys
import time
import tomllib
from pathlib import Path

from schedcc.errors import SchedccError, plural
from schedcc.planner.model import ModelSpec, preset
from schedcc.planner.search import plan
from schedcc.planner.space import Settings

DATA = Path(__file__).resolve().parent / "validation.toml"


def load() -> dict:
    with DATA.open("rb") as fh:
        return tomllib.load(fh)


def load_rows() -> list[dict]:
    return load()["rows"]


def model_of(row: dict) -> ModelSpec:
    m = row["model"]
    over = row.get("model_overrides", {})
    if isinstance(m, str):
        return preset(m, **over)
    spec = ModelSpec(name=row["id"], **{**m, **over})
    spec.check()
    return spec


def settings_of(row: dict) -> Settings:
    """The row's framework and what its source says the framework did differently."""
    return Settings(framework=row.get("framework", "any"), **row.get("settings", {}))


def command(row: dict) -> str:
    """The ``schedcc plan`` command line of *row*."""
    m = row["model"]
    parts = ["schedcc plan"]
    if isinstance(m, str):
        parts.append(m)
        sizes = row.get("model_overrides", {})
    else:
        parts.append("transformer")
        sizes = {**m, **row.get("model_overrides", {})}
    names = {"kv_heads": "kv-heads", "ffn": "ffn-hidden", "tied_embeddings": "tied-embeddings"}
    for key, value in sizes.items():
        opt = "--" + names.get(key, key)
        if value is True:
            parts.append(opt)
        elif value is not False:
            parts.append(f"{opt} {value}")
    parts.append(f"--gpus {row['gpus']} --global-batch {row['global_batch']} --target {row['target']}")
    parts.append(f"--fix {row['fix']}")
    if row.get("framework", "any") != "any":
        parts.append(f"--framework {row['framework']}")
    st = row.get("settings", {})
    if "attention" in st:
        parts.append(f"--attention {st['attention']}")
    if "grad_overlap" in st:
        parts.append("--grad-overlap" if st["grad_overlap"] else "--no-grad-overlap")
    if "grad_reduce_bytes" in st:
        parts.append(f"--grad-reduce-bytes {st['grad_reduce_bytes']}")
    if "bucket_elements" in st:
        parts.append(f"--bucket-elements {st['bucket_elements']}")
    if st.get("fp32_params"):
        parts.append("--fp32-params")
    if "optimizer_bytes" in st:
        parts.append(f"--optimizer-bytes {st['optimizer_bytes']}")
    return " ".join(parts)


def predicted_metric(row: dict, metric: str, model: ModelSpec, step: float) -> float:
    gpus, batch = row["gpus"], row["global_batch"]
    if metric == "tflops_sc21":
        s, L, h, V = model.seq, model.layers, model.hidden, model.vocab
        flops = 96 * batch * s * L * h * h * (1 + s / (6 * h) + V / (16 * L * h))
        return flops / step / gpus / 1e12
    if metric == "iteration_s":
        return step
    if metric == "tflops_model":
        return model.model_flops(batch) / step / gpus / 1e12
    if metric == "tokens_per_gpu":
        return batch * model.seq / step / gpus
    raise ValueError(metric)


def published_step(row: dict, metric: str, model: ModelSpec) -> float:
    """The published number of *row* as seconds per step (the inverse of
    :func:`predicted_metric`)."""
    pub = row["published"]
    if metric == "iteration_s":
        return pub
    return predicted_metric(row, metric, model, 1.0) / pub


def run_row(row: dict, sources: dict, workers: int = 1) -> dict:
    """Plan *row* and compare with its published number."""
    model = model_of(row)
    t0 = time.perf_counter()
    try:
        res = plan(model, row["target"], gpus=row["gpus"], global_batch=row["global_batch"], fix=row["fix"],
                   settings=settings_of(row), workers=workers, progress=False)
    except SchedccError as err:   # the published configuration refused (out of memory): a failed row
        return {"id": row["id"], "source": row["source"], "metric": sources[row["source"]]["metric"],
                "published": row["published"], "predicted": float("nan"), "error": float("nan"),
                "config": "refused: " + str(err).splitlines()[0].removeprefix("error: "), "feasible": False,
                "memory_gb": float("nan"), "mfu": 0.0, "searched": 0, "seconds": time.perf_counter() - t0,
                "command": command(row), "framework": row.get("framework", "any")}
    best = res.best
    metric = sources[row["source"]]["metric"]
    pred = predicted_metric(row, metric, model, best.step_time_s) if best.feasible else float("nan")
    pub = row["published"]
    error = (pub / pred - 1) if metric == "iteration_s" else (pred / pub - 1)
    return {"id": row["id"], "source": row["source"], "metric": metric, "published": pub, "predicted": pred,
            "error": error, "config": best.candidate.label(), "feasible": best.feasible,
            "memory_gb": best.memory_per_gpu_bytes / 1e9, "mfu": best.mfu, "searched": res.searched,
            "seconds": time.perf_counter() - t0, "command": command(row), "framework": row.get("framework", "any")}


def run_all(workers: int = 1, ids: list[str] | None = None) -> list[dict]:
    """Every row (or those named in *ids*), *workers* rows at a time in separate processes
    (each row's own search runs in its process). O(rows x candidates)."""
    data = load()
    rows = [r for r in data["rows"] if not ids or r["id"] in ids]
    if workers <= 1:
        return [run_row(r, data["sources"]) for r in rows]
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(run_row, rows, [data["sources"]] * len(rows)))


UNITS = {"tflops_sc21": "TFLOP/s/GPU", "iteration_s": "s/step", "tflops_model": "TFLOP/s/GPU",
         "tokens_per_gpu": "tokens/s/GPU"}


def markdown(results: list[dict]) -> str:
    """The table of docs/validation.md and its summary line."""
    lines = ["| row | metric | published | predicted | error | configuration (searched: the rest) | memory GB |",
             "|---|---|---:|---:|---:|---|---:|"]
    for r in results:
        fmt = "{:.2f}" if r["metric"] == "iteration_s" else "{:.0f}"
        if not r["feasible"]:   # refused as out of memory: nothing predicted
            lines.append(f"| `{r['id']}` | {UNITS[r['metric']]} | {fmt.format(r['published'])} | - | refused | "
                         f"{r['config']} | - |")
            continue
        lines.append(f"| `{r['id']}` | {UNITS[r['metric']]} | {fmt.format(r['published'])} | "
                     f"{fmt.format(r['predicted'])} | {r['error']:+.1%} | {r['config']} | {r['memory_gb']:.0f} |")
    scored = [r for r in results if r["feasible"]]
    refused = [r["id"] for r in results if not r["feasible"]]
    errs = [abs(r["error"]) for r in scored]
    worst = max(scored, key=lambda r: abs(r["error"]))
    lines.append("")
    lines.append(f"{len(results)} rows: median |error| {statistics.median(errs):.1%}, mean {statistics.mean(errs):.1%}, "
                 f"worst {abs(worst['error']):.1%} (`{worst['id']}`); {sum(e <= 0.10 for e in errs)} within 10%, "
                 f"{sum(e <= 0.15 for e in errs)} within 15%, {sum(e <= 0.20 for e in errs)} within 20%; "
                 f"refused as out of memory: {', '.join(f'`{i}`' for i in refused) or 'none'}.")
    return "\n".join(lines) + "\n"


def main() -> int:
    workers = 1
    if "--workers" in sys.argv:
        workers = int(sys.argv[sys.argv.index("--workers") + 1])
    t0 = time.perf_counter()
    results = run_all(workers)
    sys.stdout.write(markdown(results))
    sys.stdout.write(f"\n({time.perf_counter() - t0:.0f} s with {plural(workers, 'worker')})\n")
    if "--commands" in sys.argv:
        sys.stdout.write("\n")
        for r in results:
            sys.stdout.write(f"`{r['id']}`: `{r['command']}`\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
