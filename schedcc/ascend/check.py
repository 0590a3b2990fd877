"""An independent checker for synchronised kernels.

It shares no code with the sync pass or the DAG builder. From the block's
instructions it derives which pairs must be ordered (registers and tiles by
name, global memory by array and affine index), then it runs the emitted
program on the pipes:

1. **Timing simulation.** The scalar pipe issues the stream in order and runs
   its own items to completion; every other pipe executes its queue in order:
   an instruction starts when the pipe is free, ``WaitFlag`` blocks until the
   matching ``SetFlag`` has fired, ``SetFlag`` fires when everything before
   it on its pipe has finished, ``PipeBarrier`` waits for the pipe to drain,
   ``PipeBarrier<PIPE_ALL>`` (on S) for every pipe.
   This finds deadlocks (no pipe can move), a ``SetFlag`` on an event ID whose
   previous setting has not been consumed yet, flags left set at the end,
   and reads or overwrites at the wrong time under the model's latencies.
2. **Happens-before proof.** Over the same execution it computes vector
   clocks from the flags and barriers alone, and checks that every required
   ordering and every event-ID reuse holds for *any* timing, not just the
   model's.

Each failure names the instructions involved. O((n + f) * p).

Example::

    >>> from schedcc import parse
    >>> from schedcc.ascend import compile_kernels
    >>> src = "x_ub = copy_in xGm[0] {bytes = 1KiB}\\ncopy_out yGm[0], x_ub {bytes = 1KiB}\\n"
    >>> k = compile_kernels(parse(src), "ascend")[0]
    >>> check_sync(k.block, k.target, k.sync.stream).makespan
    432
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from schedcc.ir import Block, Instr
from schedcc.target import Target, load_target

SCALAR = "S"


class SyncCheckError(Exception):
    """The emitted synchronisation is wrong; ``problems`` lists each finding."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("synchronisation check failed:\n  " + "\n  ".join(problems))


@dataclass
class CheckResult:
    start: dict[int, int]
    end: dict[int, int]
    makespan: int
    busy: dict[str, int] = field(default_factory=dict)  # cycles each pipe spent executing


@dataclass(frozen=True)
class Need:
    """Instruction ``after`` may start only once ``before`` is done (or, for
    ``issue`` needs, only once it has been issued)."""

    before: int
    after: int
    what: str
    issue: bool = False


def required_orderings(block: Block, target: Target) -> list[Need]:
    """Every pair the program order demands, derived from the instructions alone."""
    pipe = [target.class_of(i).units[0] for i in block.instrs]
    needs: list[Need] = []
    last_write: dict[str, int] = {}
    reads: dict[str, list[int]] = defaultdict(list)
    # A register's value as (root, offset): `i = i + 2` keeps i's root and adds 2 to
    # its offset, so xGm[i] before and xGm[i] after it are two tiles apart.
    value: dict[str, tuple] = {}
    fresh = iter(range(1 << 62))
    mem: list[tuple[int, str | None, tuple, int, bool]] = []  # (node, array, terms, const, writes)

    def need(a: int, b: int, what: str, reg_war: bool = False) -> None:
        # The scalar pipe finishes each instruction before it issues the next; a
        # scalar register read by another pipe is read when that pipe's instruction issues.
        issue = pipe[a] == SCALAR or (reg_war and pipe[b] == SCALAR)
        needs.append(Need(a, b, what, issue))

    for j, ins in enumerate(block.instrs):
        if ins.is_terminator:
            continue
        for r in ins.uses():
            if r in last_write:
                need(last_write[r], j, f"reads {r} before '{block.instrs[last_write[r]]}' has written it")
        m = ins.mem_read or ins.mem_write
        if m is not None:
            roots: dict = {}
            const = m.index.const
            for r, c in m.index.terms:
                root, off = value.get(r, ((r, "in"), 0))
                roots[root] = roots.get(root, 0) + c
                const += c * off
            terms = tuple(sorted((k, c) for k, c in roots.items() if c))
            writes = ins.mem_write is not None
            for (i, array, t2, c2, w2) in mem:
                alias = array is None or m.array is None or array == m.array
                if alias and array == m.array and t2 == terms and c2 != const:
                    alias = False
                if alias and (writes or w2):
                    kind = "RAW" if w2 and not writes else "WAR" if writes and not w2 else "WAW"
                    need(i, j, f"accesses {m} ({kind} through memory) while '{block.instrs[i]}' may not be done")
            mem.append((j, m.array, terms, const, writes))
        for r in ins.defs():
            for i in reads[r]:
                if i != j:
                    need(i, j, f"overwrites {r} while '{block.instrs[i]}' still reads it", reg_war=True)
            if r in last_write:
                need(last_write[r], j, f"writes {r} before '{block.instrs[last_write[r]]}' has written it")
            last_write[r] = j
            reads[r] = []
            value[r] = _value_of(ins, value, fresh)
        for r in ins.uses():
            reads[r].append(j)
    return needs


def _value_of(ins: Instr, value: dict, fresh) -> tuple:
    """(root, offset) of the register *ins* defines: a constant step keeps the root."""
    from schedcc.ir import Const, Reg
    ops = ins.operands
    if ins.opcode in ("add", "sub") and len(ops) == 2 and isinstance(ops[0], Reg) and isinstance(ops[1], Const) \
            and isinstance(ops[1].value, int):
        root, off = value.get(ops[0].name, ((ops[0].name, "in"), 0))
        return root, off + (ops[1].value if ins.opcode == "add" else -ops[1].value)
    if ins.opcode == "mov" and len(ops) == 1 and isinstance(ops[0], Reg):
        return value.get(ops[0].name, ((ops[0].name, "in"), 0))
    return (("def", next(fresh)), 0)


def check_sync(block: Block, target: Target | str, stream, *, strict: bool = True,
               also_order: tuple[tuple[int, int], ...] = ()) -> CheckResult:
    """Simulate *stream* (a list of :class:`~schedcc.ascend.sync.Op`) on the pipes and prove it safe.

    *also_order* adds (a, b) pairs that must be ordered (b starts after a has
    finished) to those the checker derives itself, for instance every
    dependence of a DAG. Raises :class:`SyncCheckError` listing every problem
    found when *strict*; returns the simulated start and end cycles otherwise too.
    """
    tgt = load_target(target)
    instrs = block.instrs
    cost = {}
    for n, ins in enumerate(instrs):
        cls = tgt.class_of(ins)
        cost[n] = (cls.units[0], *cls.cost_of(ins))  # pipe, latency, occupancy
    problems: list[str] = []

    def name(n: int) -> str:
        return f"#{n} '{instrs[n]}'"

    # -- queues ------------------------------------------------------------------------
    seen = [op.node for op in stream if op.kind == "instr"]
    if sorted(seen) != list(range(len(instrs))):
        missing = sorted(set(range(len(instrs))) - set(seen))
        problems.append(f"the program issues {len(seen)} instructions, the block has {len(instrs)}"
                        + (f" (missing {', '.join(name(n) for n in missing)})" if missing else ""))
        raise SyncCheckError(problems)
    queues: dict[str, list[int]] = defaultdict(list)  # pipe -> stream indices
    for s, op in enumerate(stream):
        if op.kind == "instr" and op.pipe != cost[op.node][0]:
            problems.append(f"{name(op.node)} is issued to {op.pipe} but runs on {cost[op.node][0]}")
        if op.kind == "barrier" and op.pipe == SCALAR:
            problems.append("PipeBarrier<PIPE_S> is never needed: the scalar pipe is synchronous")
        if op.kind == "drain" and op.pipe != SCALAR:
            problems.append("PipeBarrier<PIPE_ALL> is issued by the scalar pipe")
        queues[op.pipe].append(s)
    # k-th WaitFlag of an (event, id) consumes the k-th SetFlag of it.
    sets: dict[tuple, list[int]] = defaultdict(list)
    waits: dict[tuple, list[int]] = defaultdict(list)
    for s, op in enumerate(stream):
        if op.kind == "set":
            sets[(op.event, op.event_id)].append(s)
        elif op.kind == "wait":
            waits[(op.event, op.event_id)].append(s)
        if op.kind in ("set", "wait"):
            src, _, dst = op.event.partition("_")
            if op.pipe != (src if op.kind == "set" else dst):
                problems.append(f"{'SetFlag' if op.kind == 'set' else 'WaitFlag'}<{op.event}>({op.event_id}) "
                                f"is issued to {op.pipe}")
    match: dict[int, int] = {}
    for key, ws in waits.items():
        for k, w in enumerate(ws):
            if k < len(sets[key]):
                match[w] = sets[key][k]
    if problems:
        raise SyncCheckError(problems)

    # -- timing simulation -----------------------------------------------------------------
    P = list(queues)
    head = {p: 0 for p in P}
    free = {p: 0 for p in P}        # when the pipe can start its next item
    drained = {p: 0 for p in P}     # when everything issued to it so far has finished
    fired: dict[int, int] = {}      # set stream index -> cycle
    consumed: dict[int, int] = {}   # wait stream index -> cycle
    issued_at: dict[int, int] = {}  # stream index -> when the scalar pipe issued it
    start: dict[int, int] = {}
    end: dict[int, int] = {}
    busy = {p: 0 for p in P}
    dispatch = 0                    # the scalar pipe's clock
    next_issue = 0                  # stream index the scalar pipe issues next
    exec_order: list[int] = []      # stream indices in an order consistent with happens-before

    def run_scalar() -> bool:
        nonlocal dispatch, next_issue
        moved = False
        while next_issue < len(stream):
            s = next_issue
            op = stream[s]
            if op.pipe != SCALAR:
                issued_at[s] = dispatch
                next_issue += 1
                moved = True
                continue
            if op.kind == "wait":
                if s not in match or match[s] not in fired:
                    return moved
                t = max(dispatch, fired[match[s]])
                consumed[s] = t
                dispatch = t
            elif op.kind == "drain":  # PipeBarrier<PIPE_ALL>: every pipe has run what was issued
                if any(head[p] < len(queues[p]) and queues[p][head[p]] < s for p in P if p != SCALAR):
                    return moved
                dispatch = max([dispatch, *(drained[p] for p in P if p != SCALAR),
                                *(fired[x] for x in fired)])
            elif op.kind == "instr":
                _, lat, occ = cost[op.node]
                t = max(dispatch, free[SCALAR]) if SCALAR in free else dispatch
                start[op.node], end[op.node] = t, t + lat
                busy.setdefault(SCALAR, 0)
                busy[SCALAR] += occ
                dispatch = t + lat
            issued_at[s] = dispatch
            exec_order.append(s)
            next_issue += 1
            moved = True
        return moved

    def run_pipe(p: str) -> bool:
        moved = False
        q = queues[p]
        while head[p] < len(q):
            s = q[head[p]]
            if s not in issued_at:
                return moved
            op = stream[s]
            t = max(free[p], issued_at[s])
            if op.kind == "instr":
                _, lat, occ = cost[op.node]
                start[op.node], end[op.node] = t, t + lat
                free[p] = t + occ
                drained[p] = max(drained[p], t + lat)
                busy[p] += occ
            elif op.kind == "barrier":
                free[p] = max(t, drained[p])
            elif op.kind == "set":
                fired[s] = max(t, drained[p])
            elif op.kind == "wait":
                if s not in match or match[s] not in fired:
                    return moved
                consumed[s] = max(t, fired[match[s]])
                free[p] = consumed[s]
            exec_order.append(s)
            head[p] += 1
            moved = True
        return moved

    while True:
        moved = run_scalar()
        for p in P:
            if p != SCALAR:
                moved = run_pipe(p) or moved
        if not moved:
            break
    stuck = [p for p in P if p != SCALAR and head[p] < len(queues[p])]
    if next_issue < len(stream):
        stuck.insert(0, SCALAR)
    if stuck:
        for p in stuck:
            s = next_issue if p == SCALAR else queues[p][head[p]]
            op = stream[s]
            nxt = next((stream[x].node for x in range(s, len(stream))
                        if stream[x].kind == "instr" and stream[x].pipe == p), None)
            before = f" before {name(nxt)}" if nxt is not None else ""
            if op.kind == "drain":
                problems.append(f"deadlock: {p} waits forever at PipeBarrier<PIPE_ALL>{before}: "
                                f"{', '.join(q for q in stuck if q != p) or 'a pipe'} never finishes")
                continue
            why = ("no SetFlag of it is ever issued" if s not in match
                   else "its SetFlag never fires")
            problems.append(f"deadlock: {p} waits forever at WaitFlag<HardEvent::{op.event}>({op.event_id})"
                            f"{before}: {why}")
        raise SyncCheckError(problems)
    for key, ss in sets.items():
        ws = waits.get(key, [])
        for k in range(1, len(ss)):
            if k - 1 < len(ws) and fired[ss[k]] < consumed[ws[k - 1]]:
                problems.append(f"event {key[0]} ID {key[1]} is set again (after {_setter(stream, ss[k], name)}) "
                                f"at cycle {fired[ss[k]]} while its previous setting is still waited for "
                                f"(until cycle {consumed[ws[k - 1]]})")
        if len(ss) > len(ws):
            problems.append(f"event {key[0]} ID {key[1]} is set {len(ss)} times but waited for {len(ws)} "
                            f"times: a flag is left set (after {_setter(stream, ss[-1], name)})")

    # -- happens-before over the execution ---------------------------------------------------
    idx = {p: i for i, p in enumerate(P)}
    qpos = {}
    for p, q in queues.items():
        for k, s in enumerate(q):
            qpos[s] = k
    zero = [-1] * len(P)
    begin_vc: dict[int, list[int]] = {}
    done_vc: dict[int, list[int]] = {}
    last_done = {p: zero for p in P}
    next_begin = {p: zero for p in P}
    # The scalar pipe issues item s after it has run every scalar item before s.
    last_scalar: list[int | None] = []
    prev = None
    for s, op in enumerate(stream):
        last_scalar.append(prev)
        if op.pipe == SCALAR:
            prev = s
    for s in exec_order:
        op = stream[s]
        p = op.pipe
        issuer = last_scalar[s]
        begin = _join(next_begin[p], done_vc[issuer] if issuer is not None else zero)
        if op.kind == "wait":
            begin = _join(begin, done_vc[match[s]])
        if op.kind == "barrier" or p == SCALAR:
            begin = _join(begin, last_done[p])
        if op.kind == "drain":
            for q in P:
                begin = _join(begin, last_done[q])
        begin_vc[s] = begin
        done = _join(begin, last_done[p])
        done = done[:idx[p]] + [qpos[s]] + done[idx[p] + 1:]
        done_vc[s] = done
        last_done[p] = done
        # Only a barrier waits for what came before it on the pipe; after a WaitFlag
        # the pipe knows what the matching SetFlag knew, not that its own work is done.
        next_begin[p] = done if op.kind == "barrier" else begin
    node_at = {op.node: s for s, op in enumerate(stream) if op.kind == "instr"}
    extra = [Need(a, b, f"must start after #{a} has finished") for a, b in also_order]
    for need in required_orderings(block, tgt) + extra:
        a, b = node_at[need.before], node_at[need.after]
        if need.issue:
            if a > b:
                problems.append(f"{name(need.after)} {need.what}: it is issued before {name(need.before)}")
            continue
        if begin_vc[b][idx[stream[a].pipe]] < qpos[a]:
            when = ""
            if start[need.after] < end[need.before]:
                when = f" (simulated: starts at cycle {start[need.after]}, the other ends at {end[need.before]})"
            problems.append(f"{name(need.after)} {need.what}: no flag or barrier orders it after "
                            f"{name(need.before)}{when}")
    for key, ss in sets.items():
        ws = waits.get(key, [])
        for k in range(1, len(ss)):
            if k - 1 < len(ws):
                w = ws[k - 1]
                wp = stream[w].pipe
                if done_vc[ss[k]][idx[wp]] < qpos[w]:
                    problems.append(f"event {key[0]} ID {key[1]} is reused by the SetFlag after "
                                    f"{_setter(stream, ss[k], name)} before the previous WaitFlag "
                                    f"(before {_waiter(stream, w, name)}) is known to have run")
    if problems and strict:
        raise SyncCheckError(list(dict.fromkeys(problems)))
    makespan = max(end.values(), default=0)
    return CheckResult(start, end, makespan, busy)


def _join(a: list[int], b: list[int]) -> list[int]:
    return [x if x >= y else y for x, y in zip(a, b)]


def _setter(stream, s: int, name) -> str:
    for x in range(s - 1, -1, -1):
        if stream[x].kind == "instr" and stream[x].pipe == stream[s].pipe:
            return name(stream[x].node)
    return "the start"


def _waiter(stream, w: int, name) -> str:
    for x in range(w + 1, len(stream)):
        if stream[x].kind == "instr" and stream[x].pipe == stream[w].pipe:
            return name(stream[x].node)
    return "the end"
