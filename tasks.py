#!/usr/bin/env python3
"""Project tasks that work on a fresh Debian machine with nothing but python3.

    python3 tasks.py demo    # set up .venv, install schedcc (and Graphviz), run the lecture example
    python3 tasks.py test    # set up the same, then run the whole test suite
    python3 tasks.py bench   # the benchmarks in bench/ (numbers: docs/performance.md)

Standard library only: this file runs before anything is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"


def say(msg: str) -> None:
    print(f"[tasks] {msg}", flush=True)


def run(cmd: list[str], **kw) -> None:
    say(" ".join(str(c) for c in cmd))
    subprocess.run([str(c) for c in cmd], check=True, **kw)


def apt_install(*packages: str) -> bool:
    """Install Debian packages when we may (root, or sudo without a password)."""
    if not shutil.which("apt-get"):
        return False
    prefix: list[str] = []
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        if not shutil.which("sudo") or subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode:
            return False
        prefix = ["sudo", "-n"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        run(prefix + ["apt-get", "update", "-qq"], env=env)
        run(prefix + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages], env=env)
    except subprocess.CalledProcessError:
        return False
    return True


def ensure_venv() -> None:
    stamp = VENV / ".installed"
    if stamp.exists() and stamp.stat().st_mtime >= (ROOT / "pyproject.toml").stat().st_mtime:
        return
    if not PY.exists():
        probe = subprocess.run([sys.executable, "-m", "venv", str(VENV)], capture_output=True, text=True)
        if probe.returncode != 0:
            # Debian keeps venv's pip bootstrap in a separate package.
            shutil.rmtree(VENV, ignore_errors=True)
            ver = f"{sys.version_info.major}.{sys.version_info.minor}"
            if not (apt_install(f"python{ver}-venv") or apt_install("python3-venv")):
                sys.exit("[tasks] cannot create a virtual environment: install python3-venv")
            run([sys.executable, "-m", "venv", str(VENV)])
    run([PY, "-m", "pip", "install", "-q", "-e", f"{ROOT}[test]"])
    stamp.touch()


def ensure_dot() -> None:
    if shutil.which("dot"):
        return
    say("Graphviz 'dot' is missing: installing it with apt-get")
    if not apt_install("graphviz"):
        say("could not install Graphviz; schedcc will write .dot files instead of pictures")


def demo() -> int:
    ensure_venv()
    ensure_dot()
    out = ROOT / "lecture-dag.svg"
    cmd = [BIN / "schedcc", ROOT / "examples" / "lecture.ir", "--target", "mips4", "--emit-dag", out]
    run(cmd)
    say(f"the DAG picture is in {out}")
    return 0


# Tools some tests need beyond Python: a real browser for the HTML report
# (chromium) and the front ends' compile-assemble-run tests (clang-16,
# llvm-mc-16, ld.lld-16, qemu-loongarch64). Without them those tests skip with
# a reason; CI installs them.
CI_TOOLS = {"chromium": "chromium", "clang-16": "clang-16", "llvm-mc-16": "llvm-16",
            "ld.lld-16": "lld-16", "qemu-loongarch64": "qemu-user"}
BROWSER_FONTS = ("fonts-dejavu-core", "fonts-wqy-microhei")


def ensure_ci_tools() -> None:
    if not os.environ.get("CI"):
        return
    missing = sorted({pkg for tool, pkg in CI_TOOLS.items() if not shutil.which(tool)})
    if not missing:
        return
    say(f"CI: installing {', '.join(missing)} for the browser and toolchain tests")
    fonts = BROWSER_FONTS if "chromium" in missing else ()
    if not apt_install(*missing, *fonts):
        say(f"could not install {', '.join(missing)}; the tests that need them will skip")


def test() -> int:
    ensure_venv()
    ensure_dot()
    ensure_ci_tools()
    proc = subprocess.run([str(PY), "-m", "pytest", *sys.argv[2:]], cwd=ROOT)
    return proc.returncode


def bench() -> int:
    """Run every benchmark script in bench/ (their numbers go to docs/performance.md)."""
    ensure_venv()
    status = 0
    for script in sorted((ROOT / "bench").glob("bench_*.py")):
        say(f"== {script.name}")
        status |= subprocess.run([str(PY), str(script)], cwd=ROOT).returncode
    return status


def main() -> int:
    tasks = {"demo": demo, "test": test, "bench": bench}
    if len(sys.argv) < 2 or sys.argv[1] not in tasks:
        print(__doc__)
        return 2
    return tasks[sys.argv[1]]()


if __name__ == "__main__":
    sys.exit(main())
