"""Printing Ascend kernels: Ascend C-style pseudo-code, utilisation, explanations, JSON.

The pseudo-code lists the instructions in issue order, each with the pipe
whose queue it goes to, and the inserted ``SetFlag`` / ``WaitFlag`` /
``PipeBarrier`` calls. Cycles are the checker's simulation of that code
(with the flags), falling back to the schedule's when checking was off.

Example::

    >>> from schedcc import parse
    >>> from schedcc.ascend import compile_kernels
    >>> kernels = compile_kernels(parse(open("examples/ascend/vector_add.ir").read()), "ascend")
    >>> print("\\n".join(format_block_code(kernels[1])[:3]))
    loop:
      x_ub = copy_in xGm[i] {bytes = 16KiB};          // MTE2  #0  cycles 0-456
      y_ub = copy_in yGm[i] {bytes = 16KiB};          // MTE2  #1  cycles 256-712
"""

from __future__ import annotations

from typing import Any

from schedcc.errors import plural
from schedcc.ascend.deps import COMPLETE
from schedcc.ascend.kernel import KernelResult
from schedcc.ir import format_instr


def _pad(text: str, width: int = 48) -> str:
    return text + " " * max(width - len(text), 1)


def format_block_code(k: KernelResult) -> list[str]:
    start, end = k.times()
    return _code_lines(k.block.label, k.block.instrs, k.sync.stream, k.sync.flags, start, end)


def _code_lines(label, instrs, stream, flags, start, end) -> list[str]:
    lines = [f"{label}:"]
    for op in stream:
        if op.kind == "instr":
            n = op.node
            text = format_instr(instrs[n]) + ";"
            when = f"cycles {start[n]}-{end[n]}" if n in start else ""
            lines.append("  " + _pad(text) + f"// {op.pipe:<5} #{n}  {when}".rstrip())
        elif op.kind in ("set", "wait"):
            lines.append("  " + _flag_line(op, flags))
        elif op.kind == "drain":
            lines.append("  " + _pad("PipeBarrier<PIPE_ALL>();") + "// S     all pipes done before the branch")
        else:
            lines.append("  " + _pad(f"PipeBarrier<PIPE_{op.pipe}>();") + f"// {op.pipe:<5} drain the pipe")
    return lines


def _flag_line(op, flags) -> str:
    f = flags[op.flag] if op.flag is not None and op.flag < len(flags) else None
    call = "SetFlag" if op.kind == "set" else "WaitFlag"
    text = _pad(f"{call}<HardEvent::{op.event}>({op.event_id});")
    if f is None:
        return text.rstrip()
    if op.kind == "set":
        return text + f"// {op.pipe:<5} after #{f.src}, for #{f.dst}"
    return text + f"// {op.pipe:<5} before #{f.dst}, for #{f.src}"


def format_code(kernels: list[KernelResult], loops=None) -> str:
    """The synchronised program of every function, as Ascend C-style pseudo-code."""
    if not kernels:
        return ""
    out = [f"// {kernels[0].target.name}: scheduled and synchronised by schedcc. Instructions are in",
           "// issue order; the comment names the pipe whose queue each line goes to."]
    loops = {(lk.function.name, lk.label): lk for lk in (loops or [])}
    current = None
    for k in kernels:
        if k.function is not current:
            if current is not None:
                out.append("}")
            current = k.function
            params = ", ".join(str(p) for p in k.function.params)
            out.append(f"__aicore__ void {k.function.name}({params}) {{")
        lk = loops.get((k.function.name, k.block.label))
        lines = _loop_code_lines(lk) if lk is not None else format_block_code(k)
        for other in loops.values():
            if other.function.name != k.function.name:
                continue
            targets = k.block.successors()
            if other.label in targets and k.block.label != other.label:
                # Set every carried flag once, just before entering the loop.
                lines[-1:-1] = ["  " + _pad(f"SetFlag<HardEvent::{op.event}>({op.event_id});")
                                + f"// {op.pipe:<5} once before loop '{other.label}': free for "
                                f"#{other.flags[op.flag].dst}" for op in other.before]
            if k.block.label in _exits(other) and k.block.label != other.label:
                lines[1:1] = ["  " + _pad(f"WaitFlag<HardEvent::{op.event}>({op.event_id});")
                              + f"// {op.pipe:<5} once after loop '{other.label}': the last iteration's "
                              f"#{other.flags[op.flag].src} is done" for op in other.after]
        out.extend(lines)
    out.append("}")
    return "\n".join(out) + "\n"


def _exits(lk) -> list[str]:
    return [t for t in lk.body.successors() if t != lk.label]


def _loop_code_lines(lk) -> list[str]:
    n = len(lk.body.instrs) - 1
    start = {x: lk.check.start[x] for x in range(n)}
    end = {x: lk.check.end[x] for x in range(n)}
    return _code_lines(lk.label, lk.body.instrs, lk.stream, lk.flags, start, end)


def format_summary(k: KernelResult) -> str:
    n = len(k.block.instrs)
    busy = k.busy
    makespan = k.check.makespan if k.check is not None else k.makespan
    clock = k.model.clock_ghz
    if all(p == "S" for p in k.schedule.unit.values()):
        return (f"{k.function.name} / {k.block.label}: {n} scalar instruction{'s' if n != 1 else ''}, "
                f"{makespan} cycle{'s' if makespan != 1 else ''}; no synchronisation needed")
    lines = [f"{k.function.name} / {k.block.label}: {n} instruction{'s' if n != 1 else ''} on {k.target.name}",
             f"  makespan {plural(makespan, 'cycle')} ({k.model.cycles_to_us(makespan):.3f} us at {clock:g} GHz); "
             f"serial (no overlap) {k.serial_cycles}; bound {k.bound} (busiest pipe {k.bottleneck})"]
    if k.exact is not None:
        from schedcc.emit.exact_out import exact_line
        lines.append("  " + exact_line(k.exact))
    elif k.schedule.input_order:
        lines.append(f"  the instructions issue in the order written, kept: the list schedule took "
                     f"{plural(k.schedule.list_makespan, 'cycle')}")
    if k.tile_count > 1:
        lines.append(f"  per tile ({k.tile_count} tiles unrolled): {k.cycles_per_tile:.1f} cycles; "
                     f"bound {k.bound_per_tile:g}")
    span = max(makespan, 1)
    used = [p for p in k.target.units if busy[p]]
    if used:
        lines.append("  pipe   busy  util")
        for p in used:
            mark = "  <- bottleneck" if p == k.bottleneck else ""
            lines.append(f"  {p:<5} {busy[p]:>5}  {100 * busy[p] / span:>3.0f}%{mark}")
    s = k.sync
    lines.append(f"  flags: {s.flags_before} cross-pipe dependence{'s' if s.flags_before != 1 else ''} "
                 f"-> {len(s.flags)} SetFlag/WaitFlag pair{'s' if len(s.flags) != 1 else ''} after reduction; "
                 f"barriers: {s.barriers_before} same-pipe dependence{'s' if s.barriers_before != 1 else ''} "
                 f"-> {len(s.barriers)} PipeBarrier")
    freeing = sum(1 for d in k.dag.deps if d.kind == "EVENT")
    if freeing:
        lines.append(f"  event IDs ran short: {freeing} extra ordering{'s' if freeing != 1 else ''} "
                     "(a pipe waits for an old flag's consumer before it sets the flag again)")
    if s.flags:
        ids: dict[str, set[int]] = {}
        for f in s.flags:
            ids.setdefault(f.event, set()).add(f.event_id)
        lines.append("  event IDs: " + ", ".join(f"{e} {','.join(map(str, sorted(v)))}"
                                                 for e, v in sorted(ids.items())))
    if k.check is not None:
        lines.append("  checked: no read before its producer finished, no overwrite while a reader needs "
                     "it, no deadlock, no event ID in use twice (for any timing)")
    else:
        lines.append("  not checked (--no-verify)")
    if k.allocation is not None and any(k.tiles.buffer_of(r) for i in k.block.instrs for r in (*i.uses(), *i.defs())):
        lines += format_buffers(k.allocation)
    return "\n".join(lines)


def format_buffers(a) -> list[str]:
    """Per buffer: what is allocated, the most alive at once, one region per tile; the shared regions."""
    lines = []
    for buf, u in a.buffers.items():
        how = (f"shared by lifetime: one region per tile would need {_size(u.per_tile)}" if a.shared
               else "one region per tile")
        lines.append(f"  {buf} {_size(u.allocated)} of {_size(u.capacity)} ({how}); "
                     f"at most {_size(u.peak)} alive at once")
        if a.shared:
            in_place = dict(u.in_place)
            for region, tiles in u.regions.items():
                if len(tiles) > 1:
                    lines.append(f"    {region} holds " + ", ".join(
                        t + (f" (in place over {in_place[t]})" if t in in_place else "") for t in tiles))
    return lines


def format_report(kernels: list[KernelResult]) -> str:
    if not kernels:
        return ""
    t = kernels[0].target
    head = f"target {t.name}: pipes {', '.join(t.units)}; {kernels[0].model.event_ids} event IDs per pipe pair"
    parts = [head, ""] + [format_summary(k) + "\n" for k in kernels]
    return "\n".join(parts)


def kernels_json(kernels: list[KernelResult]) -> dict[str, Any]:
    from schedcc.resources import VERSION as __version__
    out = []
    for k in kernels:
        start, end = k.times()
        s = k.sync
        out.append({
            "function": k.function.name, "block": k.block.label,
            "makespan": k.check.makespan if k.check is not None else k.makespan,
            "scheduled_makespan": k.makespan, "serial": k.serial_cycles, "bound": k.bound,
            "original_order_kept": k.schedule.input_order,
            "bottleneck": k.bottleneck, "busy": k.busy,
            "instructions": [{"id": n, "text": str(op.payload), "pipe": k.schedule.unit[n],
                              "start": start[n], "end": end[n], "busy": op.occupancy}
                             for n, op in enumerate(k.dag.ops)],
            "program": [{"kind": op.kind, "pipe": op.pipe,
                         **({"id": op.node} if op.node is not None else {}),
                         **({"event": op.event, "event_id": op.event_id} if op.kind in ("set", "wait") else {})}
                        for op in s.stream],
            "flags": [{"event": f.event, "event_id": f.event_id, "src": f.src, "dst": f.dst} for f in s.flags],
            "flags_before": s.flags_before, "barriers": len(s.barriers), "barriers_before": s.barriers_before,
            "checked": k.check is not None,
            **({"exact": k.exact.to_json()} if k.exact is not None else {}),
            **({"buffers": k.allocation.to_json()} if k.allocation is not None else {}),
        })
    t = kernels[0].target if kernels else None
    return {"schedcc": __version__, "target": t.name if t else None,
            "pipes": list(t.units) if t else [], "kernels": out}


# -- modulo-scheduled tile loops (double buffering) ------------------------------------------

def _size(n: int) -> str:
    return f"{n / 1024:g} KiB" if n >= 1024 else f"{n} B"


def format_pipelined(p) -> str:
    """The modulo schedule of a tile loop: II, bound, buffers per tile from lifetimes, II tried."""
    ms = p.schedule
    busy = p.busy
    bottleneck = max(busy, key=lambda u: busy[u])
    model = p.kernel.model
    lines = [f"{p.function.name} / {p.label}: tile loop modulo-scheduled ({ms.algorithm}): II {plural(p.ii, 'cycle')} "
             f"per tile (MII {ms.mii.value}; bound {p.bound}, busiest pipe {bottleneck}), {p.stages} stages",
             "  buffers per tile from lifetimes (BUFFER_NUM): " + ", ".join(
                 f"{r} {c} ({plural(p.lifetimes[r], 'cycle')})" for r, c in p.copies.items()),
             "  " + ", ".join(f"{b} {_size(u)} of {_size(model.buffers[b].capacity)}"
                              for b, u in p.usage.items() if u)]
    if p.rejected:
        shown = p.rejected[:3]
        lines += [f"  tried {a}" for a in shown]
        if len(p.rejected) > len(shown):
            lines.append(f"  ... and {len(p.rejected) - len(shown)} more II values")
    k = p.kernel
    lines.append(f"  as code for {k.tile_count} tiles: {plural(k.simulated_makespan, 'cycle')}, "
                 f"{k.cycles_per_tile:.1f} per tile including filling and draining the pipes")
    return "\n".join(lines)


def pipelined_json(p) -> dict[str, Any]:
    return {"function": p.function.name, "block": p.label, "ii": p.ii, "mii": p.schedule.mii.value,
            "stages": p.stages, "bound": p.bound, "algorithm": p.schedule.algorithm,
            "schedule": [{"id": n, "cycle": c, "pipe": p.schedule.unit[n]} for n, c in sorted(p.schedule.cycle.items())],
            "buffers": p.copies, "lifetimes": p.lifetimes, "usage": p.usage, "rejected": p.rejected,
            "tiles": p.kernel.tile_count, "makespan": p.kernel.simulated_makespan}


def format_explain(k: KernelResult) -> str:
    """Why each flag and barrier is there, and which dependences needed none."""
    dag, instrs, s = k.dag, k.block.instrs, k.sync
    pipe = k.schedule.unit

    def what(u: int, v: int) -> str:
        d = dag.dep(u, v)
        kind = (d.detail or "MEM") + " through memory" if d.kind == "MEM" else d.kind
        return f"{kind} on {d.reason}"

    lines = [f"Synchronisation of {k.function.name} / {k.block.label}, step by step:"]
    covered: set[tuple[int, int]] = set()
    for i, f in enumerate(s.flags):
        via = f" (no {f.src_pipe}_{f.dst_pipe} event: the scalar pipe waits)" if f.wait_pipe != f.dst_pipe else ""
        lines.append(f"  flag {i}: {f.event} ID {f.event_id}: #{f.src} '{instrs[f.src]}' ({f.src_pipe}) "
                     f"before #{f.dst} '{instrs[f.dst]}' ({f.dst_pipe}), {what(f.src, f.dst)}{via}")
        for u, v in f.covers:
            covered.add((u, v))
            if (u, v) != (f.src, f.dst):
                lines.append(f"    also orders #{u} -> #{v} ({what(u, v)}): #{u} is known to have "
                             "finished when this flag fires")
    for p, n in s.barriers:
        lines.append(f"  PipeBarrier<PIPE_{p}> before #{n} '{instrs[n]}': it needs "
                     + ", ".join(f"#{d.src} ({what(d.src, n)})" for d in dag.pred[n]
                                 if pipe[d.src] == p and d.tag == COMPLETE))
    implied = [(d.src, d.dst) for d in (d for out in dag.succ for d in out)
               if d.tag == COMPLETE and pipe[d.src] != pipe[d.dst] and (d.src, d.dst) not in covered]
    for u, v in implied:
        lines.append(f"  no flag for #{u} -> #{v} ({what(u, v)}, {pipe[u]} -> {pipe[v]}): "
                     "implied by the flags and the pipes' order")
    lines.append("  dependences out of the scalar pipe need no flag: S issues in order and finishes "
                 "its own instructions first")
    return "\n".join(lines)


# -- tile loops kept as loops (flags across the back edge) -----------------------------------

def format_loop(lk) -> str:
    s = lk.sync
    copies = ", ".join(f"{r} {c}" for r, c in lk.copies.items() if c > 1) or "one each"
    lines = [f"{lk.function.name} / {lk.label} as a loop: {lk.unroll} tile{'s' if lk.unroll != 1 else ''} "
             f"per iteration, buffers {copies}",
             f"  steady state {lk.cycles_per_tile:.1f} cycles per tile ({lk.iterations} iterations run back "
             f"to back by the checker: {plural(lk.check.makespan, 'cycle')})",
             f"  flags within an iteration: {len(s.flags)} (from {s.flags_before} cross-pipe dependences); "
             f"across the back edge: {len(lk.carried)} (from {lk.carried_before}), each set once before "
             "the loop and waited for once after it",
             "  checked: no read before its producer finished, no overwrite while a reader needs it, "
             "no deadlock, no event ID in use twice (for any timing)"]
    if lk.allocation is not None:
        lines += format_buffers(lk.allocation)
    return "\n".join(lines)


def loop_json(lk) -> dict[str, Any]:
    return {"function": lk.function.name, "block": lk.label, "unroll": lk.unroll, "buffers": lk.copies,
            "cycles_per_tile": lk.cycles_per_tile, "iterations_checked": lk.iterations,
            "makespan_checked": lk.check.makespan,
            "flags": [{"event": f.event, "event_id": f.event_id, "src": f.src, "dst": f.dst} for f in lk.sync.flags],
            "carried_flags": [{"event": f.event, "event_id": f.event_id, "src": f.src, "dst": f.dst}
                              for f in lk.carried],
            "flags_before": lk.sync.flags_before, "carried_before": lk.carried_before,
            **({"buffers": lk.allocation.to_json()} if lk.allocation is not None else {}),
            "program": [{"kind": op.kind, "pipe": op.pipe, **({"id": op.node} if op.node is not None else {}),
                         **({"event": op.event, "event_id": op.event_id} if op.kind in ("set", "wait") else {})}
                        for op in lk.stream]}
