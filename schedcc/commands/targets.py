"""``schedcc targets``: list the machine models, or show one."""

from __future__ import annotations

import argparse

from ..target import list_targets, load_target

HELP = "list the machine models (--show NAME for one in detail)"
DESCRIPTION = "List the machine models in targets/ with a one-line description."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--show", metavar="NAME", help="show one model: units, classes, latencies, opcodes")


def run(args: argparse.Namespace) -> int:
    if args.show:
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
            print(f"  class {c.name}: latency {c.latency}{per}{occ}{extra}; on {'/'.join(c.units)}")
            print(f"    opcodes: {', '.join(c.opcodes)}")
        return 0
    targets = list_targets()
    width = max(len(t.name) for t in targets)
    for t in targets:
        alias = f" (alias {', '.join(t.aliases)})" if t.aliases else ""
        print(f"{t.name:<{width}}  {t.description}{alias}")
    return 0
