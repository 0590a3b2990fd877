"""Machine models are cached by content, and what is derived from one is memoised on the
model object (``Target.derived``), never in a cache keyed by ``Target ==`` (name and
path as given): an edited file in the same process, or ``m.toml`` in another
directory, gets its own answer (issue 21, cache audit)."""

import os
from dataclasses import replace

import pytest

from schedcc.ascend.model import ascend_model
from schedcc.cli import main
from schedcc.resources import targets_dir
from schedcc.target import load_target
from schedcc.training.costs import cluster_of
from schedcc.training.graph import _dependences_only

LECTURE = str(targets_dir().parent / "examples" / "lecture.ir")


def _edit(path, old, new, keep_stat=True):
    """Replace *old* by *new* (the same length) in *path*, keeping its size and
    modification time: only the content tells the versions apart."""
    assert len(old) == len(new)
    st = os.stat(path)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    if keep_stat:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert os.stat(path).st_size == st.st_size


def _copy(name, folder):
    folder.mkdir(exist_ok=True)
    dest = folder / "m.toml"
    dest.write_text((targets_dir() / f"{name}.toml").read_text())
    return dest


def test_edited_cpu_model_same_process(tmp_path, capsys):
    m = _copy("mips4", tmp_path)
    assert load_target(str(m)).op_class("add").latency == 3
    assert main([LECTURE, "--target", str(m)]) == 0
    before = capsys.readouterr().out
    _edit(m, "latency = 3\n\n[classes.memory]", "latency = 1\n\n[classes.memory]")
    assert load_target(str(m)).op_class("add").latency == 1
    assert main([LECTURE, "--target", str(m)]) == 0
    after = capsys.readouterr().out
    assert "makespan 9 cycles" in before and "makespan 9 cycles" not in after


def test_two_models_called_m_toml_in_two_directories(tmp_path, monkeypatch):
    a, b = _copy("mips4", tmp_path / "a"), _copy("mips4", tmp_path / "b")
    _edit(b, "latency = 3\n\n[classes.memory]", "latency = 2\n\n[classes.memory]", keep_stat=False)
    monkeypatch.chdir(a.parent)
    ta = load_target("m.toml")
    monkeypatch.chdir(b.parent)
    tb = load_target("m.toml")
    assert ta == tb  # same name, same path as given: equality cannot tell them apart
    assert (ta.op_class("add").latency, tb.op_class("add").latency) == (3, 2)


def test_edited_cluster_model(tmp_path, monkeypatch):
    m = _copy("h100-8x", tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cluster_of(load_target("m.toml")).link_bw == 450e9
    _edit(m, "link_bw = 450e9", "link_bw = 150e9")
    assert cluster_of(load_target("m.toml")).link_bw == 150e9
    other = _copy("h100-8x", tmp_path / "other")
    monkeypatch.chdir(other.parent)
    assert cluster_of(load_target("m.toml")).link_bw == 450e9


def test_edited_ascend_model(tmp_path, monkeypatch):
    m = _copy("ascend910b", tmp_path)
    monkeypatch.chdir(tmp_path)
    assert ascend_model(load_target("m.toml")).clock_ghz == 1.85
    _edit(m, "clock_ghz = 1.85", "clock_ghz = 1.25")
    assert ascend_model(load_target("m.toml")).clock_ghz == 1.25
    other = _copy("ascend910b", tmp_path / "other")
    monkeypatch.chdir(other.parent)
    assert ascend_model(load_target("m.toml")).clock_ghz == 1.85


def test_cluster_errors_are_located_in_the_edited_text(tmp_path):
    m = _copy("h100-8x", tmp_path)
    assert cluster_of(load_target(str(m))).link_bw == 450e9
    text = m.read_text().replace("link_bw = 450e9", "link_bw = -1")
    m.write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith("link_bw = -1"))
    with pytest.raises(Exception) as info:
        cluster_of(load_target(str(m)))
    assert f":{line}:" in str(info.value), str(info.value)


def test_derived_values_belong_to_one_model_object():
    t = load_target("h100-8x")
    copy = replace(t, raw={**t.raw})
    assert copy == t and copy.derived is not t.derived
    assert _dependences_only(t) is _dependences_only(t)
    assert _dependences_only(copy) is not _dependences_only(t)
    assert cluster_of(t) is cluster_of(t)
