"""Faults injected with strace into the commit of a real ``schedcc`` run (issue 21).

Shared by tests/test_output_faults.py (a sample) and bench/bench_output_safety.py
(every system call). A *scenario* is one command writing three regular outputs
(``-o``, ``--emit-dag``, ``--emit-pipeline``) into a directory that holds
their old versions (or not, for outputs named in *missing*). One run under
strace, injecting nothing, lists the system calls of the write path: from
the flush of what the run printed (just before the first block of the
terminating signals) to the process's exit. Each of them is then hit in a
run of its own, ``strace -e inject=NAME:ACTION:when=N``, with a signal
(delivered when the call returns) or an error, and the directory checked:

* every output is wholly its old version (or absent, if it had none) or wholly new;
* after a signal, all outputs agree: all old or all new;
* no other file in the directory (no temporary file left behind);
* no Python traceback and no internal error.

Errors are held to the same agreement (the commit swaps files back when a
later one fails), reported apart.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LECTURE = str(ROOT / "examples" / "lecture.ir")
OUTPUTS = {"-o": "out.ir", "--emit-dag": "dag.dot", "--emit-pipeline": "pipe.svg"}
SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGPIPE")
# The error each call fails with when injected (others: EIO).
ERRORS = {"write": "ENOSPC", "openat": "ENOSPC", "linkat": "ENOSPC", "fchmod": "EPERM", "newfstatat": "EACCES",
          "getrandom": "EAGAIN", "rt_sigprocmask": "EINVAL", "rt_sigaction": "EINVAL"}
_NOT_IO = {"mmap", "munmap", "mprotect", "brk", "madvise", "mremap", "exit_group", "exit", "futex"}
_BLOCK = "rt_sigprocmask(SIG_BLOCK, [HUP INT QUIT PIPE TERM]"
_LINE = re.compile(r"^(?P<pid>\d+)\s+(?P<name>\w+)\((?P<rest>.*)$")
ENV = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}


def strace_usable() -> str | None:
    """None when strace can trace a child here; otherwise why not (naming strace)."""
    if shutil.which("strace") is None:
        return "needs strace (apt-get install strace; `python3 tasks.py test` installs it)"
    proc = subprocess.run(["strace", "-f", "-qq", "-o", os.devnull, "-e", "trace=getpid", "true"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return f"strace cannot trace here: {proc.stderr.strip()[:200]}"
    return None


def command(outputs: dict[str, str] = OUTPUTS) -> list[str]:
    cmd = [sys.executable, "-m", "schedcc.cli", LECTURE, "--target", "mips4"]
    for opt, name in outputs.items():
        cmd += [opt, name]
    return cmd


@dataclass
class Scenario:
    name: str
    old: dict[str, bytes | None]  # file name -> old content (None: absent before the run)
    new: dict[str, bytes] = field(default_factory=dict)

    def prepare(self, folder: Path) -> None:
        for f in folder.iterdir():
            f.unlink()
        for name, data in self.old.items():
            if data is not None:
                (folder / name).write_bytes(data)


def scenario(name: str, missing: tuple[str, ...] = ()) -> Scenario:
    """The scenario, its new outputs from a clean run (which also warms Python's caches)."""
    scn = Scenario(name, {f: None if f in missing else f"OLD {f}\n".encode() for f in OUTPUTS.values()})
    with tempfile.TemporaryDirectory() as d:
        proc = subprocess.run(command(), cwd=d, env=ENV, capture_output=True)
        assert proc.returncode == 0, proc.stderr
        scn.new = {f: (Path(d) / f).read_bytes() for f in OUTPUTS.values()}
    return scn


@dataclass(frozen=True)
class Call:
    name: str
    nth: int  # the how-many-th call of that name in the process
    line: str  # as strace showed it in the reference run

    def __str__(self) -> str:
        return f"{self.name}#{self.nth}"


def _calls(log: str) -> list[tuple[str, str]]:
    out = []
    for line in log.splitlines():
        m = _LINE.match(line)
        if m:
            out.append((m["name"], f"{m['name']}({m['rest']}"))
    return out


def write_path(scn: Scenario, folder: Path) -> list[Call]:
    """The system calls of the commit of one clean run (see the module's docstring)."""
    scn.prepare(folder)
    log = folder.parent / f"{folder.name}.strace"
    subprocess.run(["strace", "-f", "-qq", "-o", str(log), *command()], cwd=folder, env=ENV,
                   capture_output=True, check=True, preexec_fn=_default_signals)
    calls = _calls(log.read_text())
    log.unlink()
    start = next(i for i, (_, line) in enumerate(calls) if line.startswith(_BLOCK))
    while start > 0 and calls[start - 1][1].startswith("write(1,"):
        start -= 1
    seen: dict[str, int] = {}
    out = []
    for i, (name, line) in enumerate(calls):
        seen[name] = seen.get(name, 0) + 1
        if i >= start and name not in _NOT_IO:
            out.append(Call(name, seen[name], line))
    return out


@dataclass
class Outcome:
    call: Call
    action: str
    code: int
    injected: bool
    state: str  # "old", "new", "mixed", "absent"...: one word per output, joined
    problems: list[str]
    stderr: str


def _normal(line: str) -> str:
    line = re.sub(r"0x[0-9a-f]+", "0x", line)
    line = re.sub(r"\.[0-9a-f]{8}\"", '.X"', line)
    return re.sub(r'getrandom\("[^"]*"', "getrandom(", line).split(" = ")[0]


def _default_signals() -> None:
    """The run's terminating signals at their defaults, as from a terminal: a harness
    started in the background (``nohup ... &``) passes SIGINT, SIGQUIT and SIGHUP on
    ignored, and schedcc keeps a signal ignored at its start ignored."""
    for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(s, signal.SIG_DFL)


def inject(scn: Scenario, folder: Path, call: Call, action: str, persistent: bool = False) -> Outcome:
    """Run the scenario with *action* (``signal=SIGTERM``, ``error=EIO``) injected into *call*
    (and every later call of its name when *persistent*); check the directory."""
    scn.prepare(folder)
    log = folder.parent / f"{folder.name}.strace"
    when = f"{call.nth}+" if persistent else str(call.nth)
    # strace 6.1 does not deliver injected signals under --seccomp-bpf: trace every call.
    fast = [] if action.startswith("signal=") else ["--seccomp-bpf"]
    cmd = ["strace", "-f", "-qq", *fast, "-o", str(log), "-e", f"trace={call.name}",
           "-e", f"inject={call.name}:{action}:when={when}", *command()]
    proc = subprocess.run(cmd, cwd=folder, env=ENV, capture_output=True, text=True, preexec_fn=_default_signals)
    lines = [line for _, line in _calls(log.read_text())]
    log.unlink()
    # The call hit is the reference run's: the same arguments (temporary names aside).
    injected = len(lines) >= call.nth and _normal(lines[call.nth - 1]) == _normal(call.line)
    if not action.startswith("signal="):
        injected = injected and "INJECTED" in lines[call.nth - 1]
    problems = check(scn, folder, proc.returncode, proc.stderr, agree=True)
    return Outcome(call, action, proc.returncode, injected, _state(scn, folder), problems, proc.stderr)


def _state(scn: Scenario, folder: Path) -> str:
    words = []
    for name, old in scn.old.items():
        p = folder / name
        data = p.read_bytes() if p.exists() else None
        words.append("new" if data == scn.new[name] else "old" if data == old else "other")
    return ",".join(words)


def check(scn: Scenario, folder: Path, code: int, stderr: str, agree: bool = True) -> list[str]:
    """What is wrong with *folder* after a run that exited with *code*."""
    problems = []
    state = _state(scn, folder).split(",")
    if "other" in state:
        problems.append(f"an output is neither old nor new: {state}")
    if agree and len(set(state)) > 1:
        problems.append(f"outputs disagree: {state}")
    extra = sorted(set(os.listdir(folder)) - set(scn.old))
    if extra:
        problems.append(f"left behind: {extra}")
    if "Traceback" in stderr or "internal error" in stderr:
        problems.append("traceback or internal error: " + stderr.strip().splitlines()[-1])
    if code == 0 and set(state) != {"new"}:
        problems.append(f"exit status 0 but outputs {state}")
    return problems


def signal_number(name: str) -> int:
    return int(getattr(signal, name))
