"""Random single-block loops in the IR, for property tests and benchmarks.

:func:`random_loop` writes a function ``f(n, a, b, p)`` whose loop block mixes
loads and stores at affine offsets of the induction variable (so loop-carried
memory dependences of several distances appear), sometimes pointer accesses
``[p + 8k]`` with ``p`` stepped by 8 (a second induction variable, and pointer
against array dependences), an indirect store (an unanalysable dependence), arithmetic, accumulators, and registers read before
their definition in the body (values carried from the previous iteration).
The induction variable steps up or down by 1 to 3, and the exit test compares
it before or after the step with ``<``, ``<=``, ``>`` or ``>=``. Every array
access stays inside arrays of ``n + ARRAY_SLACK`` elements, for any ``n >= 0``.

Example::

    >>> import random
    >>> from schedcc import parse
    >>> text = random_loop(random.Random(1), 10)
    >>> len(parse(text).function("f").block("loop").instrs) >= 10
    True
"""

from __future__ import annotations

import random

ARRAY_SLACK = 24
_ARRAYS = ("A", "B", "C")


def random_loop(rng: random.Random, n_ops: int, floats: bool = False) -> str:
    """IR text of ``func f(n, a, b, p)`` with a loop body of about *n_ops* operations
    (``p`` is a pointer to an array when the body uses ``[p + k]``, else unused)."""
    step = rng.choice([1, 1, 1, 2, 3, -1, -2])
    compare_first = rng.random() < 0.3   # test the induction variable before its step
    inclusive = rng.random() < 0.3       # <= / >= instead of < / >
    body_regs = [f"v{k}" for k in range(n_ops)]
    accs = [f"s{k}" for k in range(rng.randint(0, 2))]
    lines: list[str] = []
    defined: list[str] = ["a", "b"]
    later = list(body_regs)  # registers the body defines, readable before (from the last iteration)

    def operand() -> str:
        pool = defined + accs
        if later and rng.random() < 0.2:
            return rng.choice(later)
        return rng.choice(pool)

    pointer = rng.random() < 0.3  # also walk the array at p with a pointer stepped by 8 bytes
    k = 0
    while k < n_ops:
        dest = body_regs[k]
        kind = rng.random()
        if pointer and kind < 0.12:
            if rng.random() < 0.5:
                lines.append(f"{dest} = load [p + {8 * rng.randint(0, 6)}]")
            else:
                lines.append(f"store [p + {8 * rng.randint(0, 6)}], {operand()}")
        elif kind < 0.25:
            arr = rng.choice(_ARRAYS)
            lines.append(f"{dest} = load {arr}[i + {rng.randint(3, 9)}]")
        elif kind < 0.40:
            arr = rng.choice(_ARRAYS)
            lines.append(f"store {arr}[i + {rng.randint(3, 9)}], {operand()}")
        elif kind < 0.45:
            idx = f"{dest}x"
            lines.append(f"{idx} = {operand()} & 7")
            lines.append(f"store {rng.choice(_ARRAYS)}[{idx}], {operand()}")
        elif kind < 0.55 and accs:
            acc = rng.choice(accs)
            lines.append(f"{acc} = {acc} + {operand()}")
        else:
            op = rng.choice(["+", "-", "*", "^", "&", "+"])
            lines.append(f"{dest} = {operand()} {op} {operand()}")
        if lines[-1].startswith(dest):
            defined.append(dest)
        k += 1
    # Registers read but never written in the body need a value on entry, as do
    # those read before their definition: initialise every body register.
    init = [f"{r} = {rng.randint(-3, 3)}" for r in body_regs + [f"{r}x" for r in body_regs] + accs]
    if step > 0:
        start, bound = "i = 0", "bnd = n"
        test = "le" if inclusive else "lt"
        entry_bound = "bnd = bnd - 1" if inclusive else None
    else:
        start, bound = "i = n", "bnd = 0"
        test = "ge" if inclusive else "gt"
        entry_bound = "bnd = bnd + 1" if inclusive else None
    sym = {"lt": "<", "le": "<=", "gt": ">", "ge": ">="}[test]
    entry = init + [start, bound] + ([entry_bound] if entry_bound else []) + [f"z = i {sym} bnd", "br z, loop, exit"]
    update = f"i = i + {step}" if step > 0 else f"i = i - {-step}"
    # The step goes anywhere in the body (accesses after it see i + step); the test
    # before or after it.
    at = rng.randint(0, len(lines))
    test_line = f"more = i {sym} bnd"
    lines.insert(at, update)
    if compare_first:
        lines.insert(rng.randint(0, at), test_line)
    else:
        lines.insert(rng.randint(at + 1, len(lines)), test_line)
    tail: list[str] = []
    if pointer:
        lines.insert(rng.randint(0, len(lines)), "p = p + 8")
    if compare_first:
        # Testing before the step runs one iteration more: keep the array bound in reach.
        entry.insert(-2, f"bnd = bnd {'-' if step > 0 else '+'} {abs(step)}")
    ret = accs[0] if accs else (defined[-1] if len(defined) > 2 else "i")
    text = ["func f(n, a, b, p) {", "entry:"] + [f"  {x}" for x in entry] + ["loop:"]
    text += [f"  {x}" for x in lines + tail] + ["  br more, loop, exit", "exit:", f"  ret {ret}", "}"]
    return "\n".join(text) + "\n"
