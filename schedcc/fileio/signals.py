"""Signals during an output transaction: clean up, then end as the signal asks.

While a transaction is open (:func:`handled`), SIGINT, SIGTERM, SIGHUP and
SIGQUIT (and SIGPIPE, where it is not ignored: Python ignores it, so a
write to a closed pipe is an error instead) raise an exception in the main
thread: ``KeyboardInterrupt`` for SIGINT, :class:`Interrupted` for the
others. The transaction unwinds, its temporary files are removed, and the
command line exits with 128 + the signal's number. A signal whose
disposition was ``SIG_IGN`` when the transaction began (``nohup``, a
background job) stays ignored.

Inside :func:`deferred` (the commit's own steps) those signals are blocked
and, should one still reach the handler (another thread received it), it is
only recorded: it takes effect when the block ends, so a commit is never cut
half-way. Nothing can catch SIGKILL (docs/cli.md, "Files", says what it
can leave).

Example::

    >>> import signal, threading
    >>> with handled():
    ...     try:
    ...         with deferred():   # SIGTERM sent to this thread, as a terminal or kill(1) would the process
    ...             signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
    ...             print("the commit goes on")
    ...     except Interrupted as sig:
    ...         print("then:", sig)
    the commit goes on
    then: terminated by SIGTERM
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator

HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGPIPE)
_pending: list[int] = []
_foreign: list[int] = []  # taken while blocked, not handled by us: raised again once unblocked
_depth = [0]  # deferred() nesting


class Interrupted(BaseException):
    """A terminating signal (*signum*) arrived during a transaction: nothing was committed
    (or, when it came during the commit, everything was)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"terminated by {signal.Signals(signum).name}")
        self.signum = signum


def _raise(signum: int) -> None:
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Interrupted(signum)


def _handler(signum: int, frame) -> None:
    if _depth[0]:
        if signum not in _pending:
            _pending.append(signum)
        return
    _raise(signum)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextmanager
def handled() -> Iterator[None]:
    """Install the handler for every signal of :data:`HANDLED` left at its default
    (SIGINT: Python's ``KeyboardInterrupt``); restore them at the end. Main thread only;
    elsewhere a no-op."""
    saved = {}
    if _main_thread():
        for s in HANDLED:
            old = signal.getsignal(s)
            if old is signal.SIG_DFL or (s == signal.SIGINT and old is signal.default_int_handler):
                saved[s] = old
                _set(s, _handler)
    try:
        yield
    finally:
        for s, old in saved.items():
            _set(s, old)


def _set(signum: int, handler) -> None:
    try:
        signal.signal(signum, handler)
    except OSError:  # sigaction cannot fail with these arguments; go on without the handler
        pass


def _mask(how: int, signals) -> set | None:
    """pthread_sigmask, which cannot fail with these arguments; should it (None), the
    handler's own deferral still holds signals back."""
    try:
        return signal.pthread_sigmask(how, signals)
    except OSError:
        return None


def _take_blocked() -> None:
    """Move the signals of :data:`HANDLED` that arrived while blocked into ``_pending``,
    so the end of :func:`deferred` raises them itself: once unblocked, Python would run
    their handler only at some later instruction, after the check for them."""
    while True:
        try:
            info = signal.sigtimedwait(HANDLED, 0)
        except OSError:
            return
        if info is None:
            return
        handler = signal.getsignal(info.si_signo)
        if handler is signal.SIG_IGN:
            continue  # ignored when the run began (nohup, a background job): it stays ignored
        if handler is not _handler:  # not ours (outside handled()): its own disposition, once unblocked
            _foreign.append(info.si_signo)
        elif info.si_signo not in _pending:
            _pending.append(info.si_signo)


@contextmanager
def deferred() -> Iterator[None]:
    """Block the signals of :data:`HANDLED` for the block (this thread), and hold back
    any that reaches the handler; at the end the first of them takes effect."""
    main = _main_thread()
    old = _mask(signal.SIG_BLOCK, HANDLED)
    _depth[0] += main
    try:
        yield
    finally:
        _depth[0] -= main
        if old is not None:
            if main:
                _take_blocked()
            _mask(signal.SIG_SETMASK, old)
            while _foreign:
                signal.raise_signal(_foreign.pop(0))
        if main and not _depth[0] and _pending:
            first = _pending[0]
            _pending.clear()
            _raise(first)
