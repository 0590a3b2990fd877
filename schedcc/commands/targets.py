"""``schedcc targets``: list the machine models, show one, or import one from LLVM.

``schedcc targets import --from-llvm riscv64 sifive-u74 -o u74.toml`` asks
llvm-mca about LLVM's scheduling model of a CPU and writes it as a machine
model (:mod:`schedcc.target.llvm_import`, docs/targets.md).
"""

from __future__ import annotations

import argparse

from schedcc.errors import SchedccError
from schedcc.target import list_targets, load_target

HELP = "list the machine models (--show NAME for one; import --from-llvm TRIPLE CPU to make one from LLVM's)"
DESCRIPTION = """\
List the machine models in targets/ with a one-line description, show one,
or import one from LLVM's scheduling model of a CPU (llvm-mca answers for
every instruction; docs/targets.md).

examples:
  schedcc targets
  schedcc targets --show la464
  schedcc targets import --from-llvm riscv64 sifive-u74 -o u74.toml
  schedcc prog.s --target ./u74.toml"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", nargs="?", choices=("import",), help="import: make a model from LLVM's")
    parser.add_argument("--show", metavar="NAME", help="show one model: units, classes, latencies, opcodes")
    grp = parser.add_argument_group("import")
    grp.add_argument("--from-llvm", nargs=2, metavar=("TRIPLE", "CPU"),
                     help="the LLVM triple and CPU whose scheduling model to import (llvm-mca-16 must be installed)")
    grp.add_argument("--name", help="the model's name (default: the CPU's)")
    grp.add_argument("--alias", action="append", default=[], help="another name for the model (repeatable)")
    grp.add_argument("-o", "--output", metavar="OUT.toml", help="write the model here (default: standard output)")


def run(args: argparse.Namespace) -> int:
    if args.action == "import" or args.from_llvm:
        return _import(args)
    for option, given in (("--name", args.name), ("--alias", args.alias), ("--output", args.output)):
        if given:
            raise SchedccError(f"{option} goes with 'schedcc targets import --from-llvm TRIPLE CPU'")
    if args.show is not None:
        if not args.show.strip():
            raise SchedccError("--show names no model", notes=["'schedcc targets' lists them; a path to a .toml "
                                                                "file works too"])
        t = load_target(args.show)
        print(f"{t.name}: {t.description}")
        print(f"  file: {t.path}")
        if t.aliases:
            print(f"  aliases: {', '.join(t.aliases)}")
        print(f"  issue width {t.issue_width}, {'in order' if t.in_order else 'out of order'}; "
              f"stages {' '.join(t.stages)}; WAR latency {t.war_latency}, WAW latency {t.waw_latency}")
        print("  units: " + ", ".join(f"{g} x{len(m)}" for g, m in t.groups.items()))
        if isinstance(t.raw.get("cluster"), dict):  # a cluster model (docs/cost-model.md)
            print("  cluster: " + ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}"
                                            for k, v in t.raw["cluster"].items()))
        for c in t.classes:
            extra = "".join(f", holds {u} {n} cycles" for u, n in c.also)
            occ = f", busy {c.occupancy}" if c.occupancy != 1 else ""
            per = "".join(f" + {a}/{r:g}" for a, r in c.latency_per)
            params = f" ({', '.join(f'{k}={v}' for k, v in c.params)})" if c.params else ""
            print(f"  class {c.name}: latency {c.latency}{per}{occ}{extra}{params}; on {'/'.join(c.units)}")
            print(f"    opcodes: {', '.join(c.opcodes)}")
        if isinstance(t.raw.get("ascend"), dict):
            from schedcc.ascend.model import ascend_model
            m = ascend_model(t)
            print(f"  Ascend: clock {m.clock_ghz:g} GHz; event IDs 0-{m.event_ids - 1} per pipe pair; "
                  f"{len(m.events)} pipe pairs with a HardEvent")
            print("  buffers: " + ", ".join(f"{b.name} {b.capacity // 1024} KiB (align {b.align})"
                                            for b in m.buffers.values()))
        return 0
    targets = list_targets()
    width = max(len(t.name) for t in targets)
    for t in targets:
        alias = f" (alias {', '.join(t.aliases)})" if t.aliases else ""
        print(f"{t.name:<{width}}  {t.description}{alias}")
    return 0


def _import(args: argparse.Namespace) -> int:
    """``targets import --from-llvm TRIPLE CPU``: the model, checked by loading it, then written."""
    from schedcc.fileio import STDOUT, announce, check_outputs, write_output
    from schedcc.target.llvm_import import import_llvm_model
    from schedcc.target.load import parse_target
    if args.action != "import" or not args.from_llvm:
        raise SchedccError("to import a model: schedcc targets import --from-llvm TRIPLE CPU [-o OUT.toml]")
    if args.show:
        raise SchedccError("--show and import do not combine: import, then --show the file")
    check_outputs({"--output": args.output})
    triple, cpu = args.from_llvm
    out = args.output or STDOUT
    command = (f"schedcc targets import --from-llvm {triple} {cpu}" + (f" --name {args.name}" if args.name else "")
               + "".join(f" --alias {a}" for a in args.alias))
    text = import_llvm_model(triple, cpu, args.name, command, tuple(args.alias))
    model = parse_target(text, out)  # what is written loads
    write_output(out, text)
    if out != STDOUT:
        announce(f"wrote {out}: {model.name}, {len(model.classes)} classes of "
                 f"{sum(len(c.opcodes) for c in model.classes)} opcodes; use it with --target {out}")
    return 0
