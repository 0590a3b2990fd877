"""``schedcc fx GRAPH.pt2 --target CLUSTER``: reorder a saved PyTorch FX graph to hide its collectives."""

from __future__ import annotations

import argparse
import io
import json
import sys

from schedcc.errors import SchedccError

HELP = "reorder a saved PyTorch graph (torch.export .pt2) so that its collectives hide behind compute"
DESCRIPTION = """\
Read an FX graph saved with torch.export.save (functional collectives
torch.ops._c10d_functional.* and their wait_tensor; docs/torch-fx.md shows how
to capture one on CPU), price every node from its tensor metadata on a cluster
model, find schedcc's order and report the step time and exposed communication
before and after, and a lower bound on the exposed communication of any order;
-o writes the reordered graph (a .pt2 again). --compare also runs Inductor's
overlap scheduler and its older reordering passes on the same graph, under
schedcc's cost model and under Inductor's own estimates. --rebucket also lets
schedcc split and merge bucketed collectives (DDP's all-reduce of a
concatenation, FSDP2's reduce-scatter of its chunk-cat buffer) into calls on
groups of their pieces chosen by the cost model, and merge independent
collectives of one kind, group, reduction and dtype (tensor parallelism's
layer-norm all-reduces) into fewer calls, each kept only when the step is
predicted shorter; the outputs stay exactly the same.

examples:
  schedcc fx step.pt2 --target h100-8x -o step.reordered.pt2
  schedcc fx step.pt2 --target h100-8x --group 0=8 --compare
  schedcc fx step.pt2 --target h100-8x --estimates inductor --format json
  schedcc fx step.pt2 --target h100-8x --rebucket -o step.rebucketed.pt2
  schedcc fx step.pt2 --target h100-8x --import mylib.ops   (custom ops: import what registers them)"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="GRAPH.pt2", help="a graph saved with torch.export.save")
    parser.add_argument("-t", "--target", required=True, help="cluster model: h100-8x, h100-128x, dgx-a100, dgx-h100, ... (schedcc targets lists them)")
    parser.add_argument("-o", "--output", metavar="OUT.pt2", help="write the reordered graph (torch.export.save)")
    parser.add_argument("--estimates", choices=("schedcc", "inductor"), default="schedcc",
                        help="node durations: schedcc's cluster cost model or Inductor's roofline and NCCL "
                             "estimates (default schedcc)")
    parser.add_argument("--group", action="append", metavar="NAME=SIZE", dest="group_sizes",
                        help="size of a process group whose collectives do not say it, e.g. --group 0=8 "
                             "(default: the whole cluster, reported)")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE", dest="set_values",
                        help="override a cluster number, e.g. --set link_bw=200GB/s (repeatable)")
    parser.add_argument("--compare", action="store_true",
                        help="also run Inductor's reordering passes; one table under both estimates")
    parser.add_argument("--rebucket", action="store_true",
                        help="also split and merge bucketed all-reduces and FSDP2 reduce-scatters, and merge "
                             "independent collectives of one kind, into calls the cost model chooses, when that "
                             "shortens the step (default: the graph's nodes kept, only reordered)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--import", action="append", metavar="MODULE", dest="imports", default=[],
                        help="import this Python module before reading the graph, so that the custom ops it "
                             "registers (torch.library) can be loaded; an op the cost tables do not know is "
                             "priced from its tensor metadata (repeatable)")
    from schedcc.commands import exact_opts
    exact_opts.add_arguments(parser)


def load_graph(path: str, imports: list[str] | tuple = ()):
    """The ``ExportedProgram`` saved at *path*, after importing *imports* (modules that register the
    graph's custom ops); a clear error naming the file, or the op and node torch cannot load, otherwise."""
    try:
        import torch
    except ImportError:
        raise SchedccError(f"{path}: reading a PyTorch graph needs torch",
                           notes=["pip install 'schedcc[torch]'"]) from None
    _import_modules(imports)
    from schedcc.fileio import read_bytes
    data = read_bytes(path)
    if not data.startswith(b"PK"):  # torch.export.save writes a zip archive
        raise SchedccError(f"{path}: not a graph saved by torch.export.save (not a zip archive)",
                           notes=["save one with torch.export.save(torch.export.export(module, args), path)"])
    if _is_pickle_archive(data):
        raise SchedccError(f"{path}: written by torch.save (a pickled object), not by torch.export.save",
                           notes=["save the graph with torch.export.save(torch.export.export(module, args), path); "
                                  "docs/torch-fx.md shows how to capture a training step"])
    import logging
    quiet = logging.getLogger("torch.export")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # torch logs the traceback of what it cannot read
    try:
        return torch.export.load(io.BytesIO(data))
    except Exception as err:  # torch raises many kinds for a file it cannot read
        _refuse_unregistered_ops(path, data)
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise SchedccError(f"{path}: not a graph saved by torch.export.save ({first[:200]})",
                           notes=["save one with torch.export.save(torch.export.export(module, args), path)"]) \
            from None
    finally:
        quiet.setLevel(level)


def _import_modules(imports) -> None:
    """Import each module, the current folder on the path as ``python -m`` has it."""
    import importlib
    import os
    if imports and os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())
    for name in imports:
        try:
            importlib.import_module(name)
        except Exception as err:  # ImportError, or whatever the module raises while registering its ops
            raise SchedccError(f"--import {name}: cannot import it ({type(err).__name__}: {str(err)[:200]})",
                               notes=["give a module on the Python path (PYTHONPATH) that registers the "
                                      "graph's custom ops with torch.library"]) from None


def _refuse_unregistered_ops(path: str, data: bytes) -> None:
    """A named error for the ops of the saved graph this process has not registered (custom ops whose
    module was not imported): torch.export.load cannot rebuild the graph without them."""
    import zipfile
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        models = [n for n in archive.namelist() if "/models/" in n and n.endswith(".json")]
        graphs = [json.loads(archive.read(n)).get("graph_module", {}).get("graph", {}) for n in models]
    except (zipfile.BadZipFile, OSError, ValueError, AttributeError):
        return
    missing: dict[str, str] = {}
    for graph in graphs:
        for node in graph.get("nodes", []) if isinstance(graph, dict) else []:
            target = node.get("target") if isinstance(node, dict) else None
            if isinstance(target, str) and target.startswith("torch.ops.") and not _registered(target):
                outs = node.get("outputs") or [{}]
                name = (outs[0].get("as_tensor") or {}).get("name", "?") if isinstance(outs[0], dict) else "?"
                missing.setdefault(target[len("torch.ops."):], name)
    if missing:
        op, node = next(iter(missing.items()))
        more = f" (and {len(missing) - 1} more: {', '.join(list(missing)[1:4])})" if len(missing) > 1 else ""
        raise SchedccError(f"{path}: op {op} at node '{node}' is not registered in this process{more}: "
                           "torch.export.load cannot rebuild the graph without it",
                           notes=[f"import the module that defines it: schedcc fx {path} --import MODULE ... "
                                  "(an op the cost tables do not know is then priced from its tensor metadata)"])


def _registered(target: str) -> bool:
    """Whether ``torch.ops.NS.NAME.OVERLOAD`` resolves in this process."""
    import torch
    parts = target.split(".")[2:]
    if len(parts) != 3:
        return True  # not an operator overload's name: left to torch.export.load's own message
    ns, name, overload = parts
    try:
        torch._C._get_schema(f"{ns}::{name}", "" if overload == "default" else overload)
    except RuntimeError:
        return False
    return True


def _is_pickle_archive(data: bytes) -> bool:
    """A zip archive as torch.save writes it (``<name>/data.pkl``), not as torch.export.save does."""
    import zipfile
    try:
        names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return False
    return any(n.endswith("/data.pkl") or n == "data.pkl" for n in names) and \
        not any("/models/" in n or n.startswith("models/") for n in names)


def run(args: argparse.Namespace) -> int:
    from schedcc.commands.train import cluster_model, parse_groups
    from schedcc.fileio import announce, check_outputs, write_output
    check_outputs({"--output": args.output}, (args.file,))
    target = cluster_model(args)
    groups = parse_groups(args.group_sizes)
    for name, size in groups.items():
        if size < 1:
            raise SchedccError(f"--group {name}={size}: a process group has at least one rank")
    exact = None
    if args.exact:
        from schedcc.commands import exact_opts
        exact = exact_opts.limits(args)
    ep = load_graph(args.file, args.imports)
    gm = ep.graph_module
    rows = None
    if args.compare:
        from schedcc.torch.fx_bound import step_bound
        from schedcc.torch.fx_graph import build_step
        from schedcc.torch.fx_reorder import durations
        from schedcc.torch.inductor import compare_orders
        step = build_step(gm, target, groups, args.file)
        rows = compare_orders(step, exact=exact)
        for est in ("schedcc", "inductor"):  # after each estimates' rows: the bound of any order
            b = step_bound(step, durations(step, est))
            at = max(k for k, r in enumerate(rows) if r["estimates"] == est) + 1
            rows.insert(at, {"estimates": est, "order": "lower bound (any order)", "step_us": b.step_us,
                             "exposed_us": b.exposed_us, "comm_us": None, "error": None,
                             "argument": b.argument})
    from schedcc.torch.fx_reorder import reorder
    result = reorder(gm, target, groups=groups, estimates=args.estimates, exact=exact, source=args.file,
                     bound=True, rebucket=args.rebucket)
    if args.output:
        import torch
        buf = io.BytesIO()
        torch.export.save(ep, buf)
        write_output(args.output, buf.getvalue(), (args.file,))
    if args.format == "json":
        data = {"file": args.file, "target": target.name, **result.to_json(), "order": result.order}
        if rows is not None:
            data["compare"] = rows
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        sys.stdout.write(format_result(args.file, target.name, result, rows))
    if args.output:
        announce(f"wrote {args.output}")
    return 0


def format_result(name: str, target: str, result, rows) -> str:
    b, a = result.before, result.after
    n = len(result.order)
    lines = [f"{name}: {n:,} node{'s' if n != 1 else ''} on {target}, {result.estimates}'s estimates",
             f"  {'order':<30}{'step (us)':>12}{'comm (us)':>12}{'exposed (us)':>14}"]
    for label, r in (("original", b), ("schedcc", a)):
        lines.append(f"  {label:<30}{r.step_time_us:>12.1f}{r.comm_us:>12.1f}{r.exposed_comm_us:>14.1f}")
    bound = result.bound
    if bound is not None:
        lines.append(f"  {'any order (lower bound)':<30}{bound.step_us:>12.1f}{'':>12}{bound.exposed_us:>14.1f}")
    gain = (b.step_time_us - a.step_time_us) / b.step_time_us * 100 if b.step_time_us else 0.0
    lines.append(f"  schedcc: {a.note or 'the graph' + chr(39) + 's own order'}; step {gain:.1f}% shorter")
    for line in result.rebucketed:
        lines.append(f"  re-bucketed: {line}")
    if bound is not None:
        lines.append(f"  bound: {bound.argument}; schedcc's order exposes "
                     f"{max(0.0, a.exposed_comm_us - bound.exposed_us):.1f} us more than it")
    if not b.comm_by_group:
        lines.append("  note: the graph has no collective (torch.ops._c10d_functional.*): nothing to hide; "
                     "capture the step with schedcc.torch.capture.capture (docs/torch-fx.md)")
    for group in result.assumed_groups:
        lines.append(f"  note: process group '{group}' does not say its size: priced as the whole cluster "
                     f"(say --group {group}=N)")
    if rows:
        lines.append("")
        lines.append(f"  {'estimates':<10}{'order':<30}{'step (us)':>12}{'exposed (us)':>14}")
        for row in rows:
            if row["error"]:
                lines.append(f"  {row['estimates']:<10}{row['order']:<30}  invalid: {row['error']}")
            else:
                lines.append(f"  {row['estimates']:<10}{row['order']:<30}{row['step_us']:>12.1f}"
                             f"{row['exposed_us']:>14.1f}")
    return "\n".join(lines) + "\n"
