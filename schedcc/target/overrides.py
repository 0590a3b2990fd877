"""``--set KEY=VALUE``: change one number of a machine model for one run.

*KEY* is the dotted path of a value in the model's TOML file
(``classes.copy_in.params.bandwidth``, ``ascend.buffers.UB.capacity``,
``units.ALU.count``); *VALUE* is a TOML value (``128``, ``1.5``, ``true``,
``"x"``); a bare word is taken as a string. The key must exist already, so
that a typo is reported rather than silently ignored.

Example::

    >>> from schedcc.target import load_target
    >>> t = apply_overrides(load_target("ascend"), ["ascend.buffers.UB.capacity=262144"])
    >>> t.raw["ascend"]["buffers"]["UB"]["capacity"]
    262144
"""

from __future__ import annotations

import copy
import difflib
import tomllib

from schedcc.errors import SchedccError, check_nesting
from schedcc.target import Target, target_from_data


def _value(text: str, key: str):
    try:
        check_nesting(text, "--set", "[]{}", "\"'", ("#",))
    except SchedccError as err:
        raise SchedccError(f"--set {key}: {err.message}", notes=err.notes) from None
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_overrides(target: Target, settings: list[str] | None) -> Target:
    """A copy of *target* with each ``KEY=VALUE`` of *settings* applied."""
    if not settings:
        return target
    data = copy.deepcopy(target.raw)
    for setting in settings:
        key, eq, text = setting.partition("=")
        key = key.strip()
        if not eq or not key:
            raise SchedccError(f"--set expects KEY=VALUE, got '{setting}'",
                               notes=["for example: --set classes.copy_in.params.bandwidth=128"])
        parts = key.split(".")
        table = data
        for i, part in enumerate(parts[:-1]):
            nxt = table.get(part) if isinstance(table, dict) else None
            if not isinstance(nxt, dict):
                here = ".".join(parts[:i]) or "the model"
                options = sorted(k for k, v in table.items() if isinstance(v, dict)) if isinstance(table, dict) else []
                close = difflib.get_close_matches(part, options, n=3)
                raise SchedccError(f"--set {key}: {here} has no table '{part}'",
                                   notes=[f"did you mean {', '.join(close)}?" if close
                                          else f"tables there: {', '.join(options) or 'none'}"])
            table = nxt
        leaf = parts[-1]
        if leaf not in table:
            close = difflib.get_close_matches(leaf, list(table), n=3)
            raise SchedccError(f"--set {key}: no key '{leaf}' in {'.'.join(parts[:-1]) or 'the model'}",
                               notes=[f"did you mean {', '.join(close)}?" if close
                                      else f"keys there: {', '.join(table) or 'none'}"])
        table[leaf] = _value(text.strip(), key)
    label = f"{target.path or target.name} (with --set {' '.join(settings)})"
    try:
        return target_from_data(data, label)
    except SchedccError as err:  # say which --set made the model invalid
        message = err.message.removeprefix(label + ": ")
        culprit = next((s for s in reversed(settings) if f"key '{s.partition('=')[0].strip()}'" in message),
                       " ".join(settings))
        raise SchedccError(f"--set {culprit}: {message}", notes=err.notes) from None
