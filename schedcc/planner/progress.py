"""The plan search's progress on stderr, in its two phases.

A search first *prepares* every candidate (memory, level 1, a lower bound on its step: fast,
a steady rate, so a plain "about N s left" holds), then *schedules the pipelines* of the
candidates whose bound can still enter the table (or the picture's band), in order of their
bounds, until none can: slower per candidate, and how many it will schedule is only known as
an upper bound that falls as better steps are found. One rate and one count over both
phases made the estimate grow from "about 17 s left" to "about 114 s left" on the 70B
question with ``--svg``; each phase now says what it does, and the second gives its
remaining work and time as "at most".

On a terminal, a bar after :data:`PROGRESS_AFTER_S`; elsewhere (a log, a pipe, CI) a line
every :data:`PROGRESS_EVERY_S` (every :data:`PROGRESS_AFTER_S` when forced on)::

    schedcc plan: prepared 1,121 of 4,970 candidates (23%: memory, layer schedules, bounds), 5 s, about 17 s left
    schedcc plan: scheduled 120 pipelines, at most 1,040 more can still place, 66 s, at most about 520 s left
"""

from __future__ import annotations

import sys
import time

PROGRESS_AFTER_S = 2.0   # a progress bar appears when a search runs longer than this (on a terminal)
PROGRESS_EVERY_S = 5.0   # elsewhere (a log, a pipe), a progress line this often


class Progress:
    """Progress on stderr (module docstring). *enabled*: None (auto), True (on) or False (off).
    :meth:`advance` counts prepared candidates; :meth:`scheduling` reports the second phase."""

    def __init__(self, total: int, enabled: bool | None):
        self.total, self.done, self.t0 = total, 0, time.perf_counter()
        self.tty = sys.stderr.isatty()
        self.on = enabled is not False
        self.every = PROGRESS_AFTER_S if enabled else PROGRESS_EVERY_S
        self.last = self.t0
        self.shown = False
        self.t1: float | None = None      # when the pipelines' phase began
        self.scheduled = self.left = 0
        self.width = 0                    # the bar's last length (a shorter one is padded over it)

    def advance(self, n: int) -> None:
        """*n* more candidates prepared (or refused: out of memory).

        >>> p = Progress(4, False)
        >>> p.advance(3); p._text(p.t0 + 6, bar=False)[0]
        'prepared 3 of 4 candidates (75%: memory, layer schedules, bounds), 6 s, about 2 s left'
        >>> p.scheduling(0, 2); p.t1 = p.t0 + 6
        >>> p.scheduling(1, 1); p._text(p.t0 + 10, bar=False)[0]
        'scheduled 1 pipeline, at most 1 more can still place, 10 s, at most about 4 s left'
        """
        self.done += n
        self._show()

    def scheduling(self, scheduled: int, left: int) -> None:
        """*scheduled* pipelines so far; at most *left* more can still place."""
        if self.t1 is None:
            self.t1 = time.perf_counter()
        self.scheduled, self.left = scheduled, left
        self._show()

    def _text(self, now: float, bar: bool) -> tuple[str, bool]:
        """(the message, whether work is left)."""
        elapsed = now - self.t0
        if self.t1 is None:
            frac = self.done / self.total if self.total else 1
            eta = elapsed / frac - elapsed if frac else 0
            if bar:
                width = 30
                mark = "#" * int(width * frac) + "." * (width - int(width * frac))
                return (f"preparing [{mark}] {self.done}/{self.total} candidates, {elapsed:.0f} s"
                        + (f", ~{eta:.0f} s left" if self.done < self.total else "")), self.done < self.total
            return (f"prepared {self.done:,} of {self.total:,} candidates ({frac:.0%}: memory, layer schedules, "
                    f"bounds), {elapsed:.0f} s, about {eta:.0f} s left"), self.done < self.total
        per = (now - self.t1) / self.scheduled if self.scheduled else 0.0
        eta = per * self.left
        if bar:
            return (f"scheduling pipelines: {self.scheduled} done, at most {self.left} more, {elapsed:.0f} s"
                    + (f", ~{eta:.0f} s left at most" if self.left else "")), self.left > 0
        return (f"scheduled {self.scheduled:,} pipeline{'' if self.scheduled == 1 else 's'}, at most {self.left:,} more can still place, "
                f"{elapsed:.0f} s, at most about {eta:.0f} s left"), self.left > 0

    def _show(self) -> None:
        if not self.on:
            return
        now = time.perf_counter()
        if not self.tty:
            text, more = self._text(now, bar=False)
            if now - self.last >= self.every and more:
                sys.stderr.write(f"schedcc plan: {text}\n")
                sys.stderr.flush()
                self.last = now
            return
        text, more = self._text(now, bar=True)
        if now - self.t0 < PROGRESS_AFTER_S and more:
            return
        if not self.shown and not more:
            return
        sys.stderr.write(f"\r{text:<{self.width}}   ")
        sys.stderr.flush()
        self.width = max(self.width, len(text))
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()
