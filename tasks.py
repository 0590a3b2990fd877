#!/usr/bin/env python3
"""Project tasks that work on a fresh Debian machine with nothing but python3.

    python3 tasks.py demo    # set up .venv, install schedcc (and Graphviz), run the lecture example
    python3 tasks.py test    # set up the same (and the tools, Ray and torch the tests use), then run the whole test suite
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


def apt_install(*packages: str, update: bool = True) -> bool:
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
        if update:
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
    for old in (out, out.with_suffix(".dot")):
        if old.exists():
            old.unlink()  # say only what this run wrote
    cmd = [BIN / "schedcc", ROOT / "examples" / "lecture.ir", "--target", "mips4", "--emit-dag", out]
    run(cmd)
    if out.exists():
        say(f"the DAG picture is in {out}")
    elif out.with_suffix(".dot").exists():
        say(f"Graphviz is missing, so the DAG is in {out.with_suffix('.dot')} (Graphviz's text form), "
            "not drawn; install Graphviz (apt-get install graphviz) for the picture")
    return 0


# Tools tests need beyond Python, and the Debian package of each: Graphviz for
# the pictures, a real browser for the HTML report (chromium, with fonts for
# Latin and Chinese text), and the front ends' compile-assemble-run tests
# (clang-16, llc-16 / llvm-mc-16 / llvm-as-16, ld.lld-16, qemu-loongarch64),
# strace for the output-safety tests (faults injected into the commit of outputs).
# `tasks.py test` installs the missing ones (as root or with password-less
# sudo); where it cannot, the tests that need them skip and say which tool.
TEST_TOOLS = {"dot": "graphviz", "chromium": "chromium", "clang-16": "clang-16", "llc-16": "llvm-16",
              "llvm-mc-16": "llvm-16", "llvm-as-16": "llvm-16", "ld.lld-16": "lld-16",
              "qemu-loongarch64": "qemu-user", "qemu-riscv64": "qemu-user", "llvm-mca-16": "llvm-16",
              "strace": "strace"}
FONT_FILES = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf": "fonts-dejavu-core",
              "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc": "fonts-wqy-microhei"}


def missing_test_packages() -> list[str]:
    """The Debian packages of the test tools that are not on this machine."""
    missing = {pkg for tool, pkg in TEST_TOOLS.items() if not shutil.which(tool)}
    missing |= {pkg for path, pkg in FONT_FILES.items() if not Path(path).exists()}
    return sorted(missing)


def ensure_test_tools() -> None:
    missing = missing_test_packages()
    if not missing:
        return
    say(f"installing {', '.join(missing)} for the picture, browser and toolchain tests")
    if apt_install(*missing):
        return
    # One package this release lacks must not keep the others out.
    failed = [pkg for pkg in missing if not apt_install(pkg, update=False)]
    if failed:
        missing = failed
        say(f"could not install {', '.join(missing)} (this needs apt-get as root or with password-less "
            "sudo); the tests that need them will skip, each saying which tool is missing")


def ensure_ray() -> bool:
    """Install the Ray extra (``schedcc plan --ray``) so that its test runs here and in CI.
    Ray ships wheels for the common platforms only: where pip cannot install it, say so
    and go on; the Ray tests then skip, saying Ray is not installed."""
    if subprocess.run([str(PY), "-c", "import ray"], capture_output=True).returncode == 0:
        return True
    try:
        run([PY, "-m", "pip", "install", "-q", "-e", f"{ROOT}[test,ray]"])
    except subprocess.CalledProcessError:
        say("could not install Ray on this platform; the planner's Ray test will skip")
        return False
    return True


# torch's CPU build: the PyPI default is a CUDA build of several GB that the
# tests (CPU only: gloo, the fake process group) do not need. Tried in order:
# a CPU wheel pip already knows of (a find-links folder: one is 2.13.0+cpu),
# PyTorch's CPU index, then whatever plain pip resolves.
TORCH_SOURCES = (["torch==2.13.0"],
                 ["torch", "--index-url", "https://download.pytorch.org/whl/cpu"],
                 ["torch"])


def ensure_torch() -> bool:
    """Install the torch extra (torch on the CPU, holistictraceanalysis) so that the
    PyTorch graph and trace tests run here and in CI; where no torch installs, say so
    and go on (those tests then skip, saying torch is not installed)."""
    probe = "import torch, hta"
    if subprocess.run([str(PY), "-c", probe], capture_output=True).returncode == 0:
        return True
    if subprocess.run([str(PY), "-c", "import torch"], capture_output=True).returncode != 0:
        for source in TORCH_SOURCES:
            try:
                run([PY, "-m", "pip", "install", "-q", *source])
                break
            except subprocess.CalledProcessError:
                continue
    try:
        run([PY, "-m", "pip", "install", "-q", "-e", f"{ROOT}[test,torch]"])
    except subprocess.CalledProcessError:
        say("could not install torch on this platform; the PyTorch graph and trace tests will skip")
        return False
    return True


# The frameworks whose own parsers check schedcc plan --emit's output (tests/test_emit_launch.py):
# their pure-Python packages without their heavy dependencies (no CUDA builds, no datasets):
# DeepSpeed's config classes, torchtitan 0.2's job-TOML parser (0.3 dropped the TOML files),
# megatron-core's TransformerConfig and DistributedDataParallelConfig. Test-only; not the
# project's dependencies.
FRAMEWORKS = ["deepspeed", "torchtitan==0.2.2", "megatron-core"]
FRAMEWORK_DEPS = ["hjson", "py-cpuinfo", "pydantic", "tqdm", "msgpack", "ninja", "einops", "tyro", "tomli"]


def ensure_framework_parsers() -> bool:
    probe = "import deepspeed.runtime.config, megatron.core.transformer, importlib.util as u; " \
            "assert u.find_spec('torchtitan')"
    env = dict(os.environ, DS_BUILD_OPS="0")
    if subprocess.run([str(PY), "-c", probe], capture_output=True, env=env).returncode == 0:
        return True
    try:
        run([PY, "-m", "pip", "install", "-q", "--no-deps", *FRAMEWORKS], env=env)
        run([PY, "-m", "pip", "install", "-q", *FRAMEWORK_DEPS])
    except subprocess.CalledProcessError:
        say("could not install deepspeed, torchtitan or megatron-core; the tests of --emit against their "
            "parsers will skip (the schema tests still run)")
        return False
    return True


def test() -> int:
    ensure_venv()
    ensure_test_tools()
    ensure_ray()
    ensure_torch()
    ensure_framework_parsers()
    args = sys.argv[2:]
    # The whole suite on every core (pytest-xdist): see docs/performance.md ("The test suite's CPU").
    parallel = [] if any(a == "-n" or a.startswith("-n") for a in args) else ["-n", "auto"]
    proc = subprocess.run([str(PY), "-m", "pytest", *parallel, *args], cwd=ROOT)
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
