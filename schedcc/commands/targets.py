"""``schedcc targets``: list the machine models, or show one."""

from __future__ import annotations

import argparse

from schedcc.target import list_targets, load_target

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
