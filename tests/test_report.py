"""schedcc report: a self-contained HTML page, checked as text and in a real headless browser."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from schedcc import parse
from schedcc.cli import main
from schedcc.driver import schedule_program
from schedcc.report.html import report_html

sys.path.insert(0, str(Path(__file__).parent))
from png_pixels import non_white_fraction, read_png  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LOOP = """func f(n) {
entry:
  i = 0
  jmp loop
loop:
  b = load B[i]
  t = a * b
  c = load C[i]
  c2 = c + t
  store C[i], c2
  i = i + 1
  k = i < n
  br k, loop, done
done:
  ret
}
"""


@pytest.fixture
def lecture_page(tmp_path, capsys):
    out = tmp_path / "lecture.html"
    assert main(["report", str(ROOT / "examples" / "lecture.ir"), "--target", "mips4", "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    return out


def test_page_is_self_contained(lecture_page):
    page = lecture_page.read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page.lower()
    assert not re.search(r'(src|href)\s*=\s*"(https?:)?//', page), "the page must not load anything"
    assert "<link" not in page.lower() and "@import" not in page
    # The DAG (Graphviz), the schedule table, the pipeline diagram and the walkthrough.
    if shutil.which("dot"):
        assert 'class="node"' in page
    assert "<table class=\"sched\">" in page
    assert "original order: 11 cycles" in page and "scheduled order: 9 cycles" in page
    assert "the lecture&#x27;s walkthrough" in page or "the lecture's walkthrough" in page
    assert "every priority is the lecture&#x27;s weight + 3" in page


def test_report_refuses_to_overwrite_input(tmp_path, capsys):
    src = tmp_path / "p.ir"
    src.write_text("t0 = t1 + t2\n")
    assert main(["report", str(src), "-o", str(src)]) == 2
    assert src.read_text() == "t0 = t1 + t2\n"
    assert "refusing to overwrite" in capsys.readouterr().err


def test_loop_kernel_picture_from_the_modulo_scheduler():
    result = schedule_program(parse(LOOP, "loop.ir"), "la464", explain=True)
    page = report_html(result, LOOP)
    assert "Software pipelining" in page
    assert re.search(r"f/loop: II \d+, \d+ stages", page) or re.search(r"loop: II \d+, \d+ stages", page)
    assert "pipelined: iteration 0" in page and "not pipelined: iteration 0" in page
    assert "<?xml" not in page


def test_loop_that_cannot_be_pipelined_says_why():
    text = LOOP.replace("  t = a * b\n", "  t = call g(b)\n")
    result = schedule_program(parse(text, "loop.ir"), "la464", explain=True)
    page = report_html(result, text)
    assert "Software pipelining" in page and "not pipelined" in page


def test_no_loop_no_kernel_section():
    result = schedule_program(parse("t0 = t1 + t2\n", "x.ir"), "mips4", explain=True)
    assert "Software pipelining" not in report_html(result)


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def screenshot(page: Path, png: Path, width: int = 1280, height: int = 2400, env: dict | None = None) -> None:
    browser = find_chromium()
    with tempfile.TemporaryDirectory() as profile:
        cmd = [browser, "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--hide-scrollbars", f"--user-data-dir={profile}", f"--window-size={width},{height}",
               f"--screenshot={png}", page.resolve().as_uri()]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.insert(1, "--no-sandbox")  # Chromium refuses to run as root inside its sandbox
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                              env=None if env is None else {**os.environ, **env})
    assert proc.returncode == 0 and png.exists(), proc.stderr[-2000:]


@pytest.mark.skipif(find_chromium() is None,
                    reason="chromium is not installed (apt-get install chromium; "
                           "`python3 tasks.py test` installs it)")
def test_report_renders_in_headless_chromium(lecture_page, tmp_path):
    png = tmp_path / "lecture.png"
    screenshot(lecture_page, png)
    assert png.stat().st_size > 30_000, "the screenshot is suspiciously small"
    image = read_png(png)
    assert image.shape[0] == 2400 and image.shape[1] == 1280
    assert non_white_fraction(image) > 0.05, "the page rendered (almost) blank"
    # The dark header band is drawn at the top: the CSS was applied.
    assert image[10, 10, :3].tolist() == [0x24, 0x3b, 0x53]
    import numpy as np

    def pixels(rgb: int) -> int:
        want = np.array([(rgb >> 16) & 255, (rgb >> 8) & 255, rgb & 255], dtype=np.uint8)
        return int(np.all(image[..., :3] == want, axis=-1).sum())

    # The inline SVG pipeline diagram rendered: its ID cells (#cfe2f3) and RW cells (#ead1dc).
    assert pixels(0xCFE2F3) > 500 and pixels(0xEAD1DC) > 500
    if shutil.which("dot"):
        assert pixels(0xFFF0F0) > 500  # the DAG's critical-path nodes (Graphviz SVG)
    # Keep a copy for people to look at.
    keep = os.environ.get("SCHEDCC_SCREENSHOT_DIR")
    if keep:
        shutil.copy(png, Path(keep) / "report-lecture.png")


def test_without_graphviz_the_page_carries_the_dot_text(monkeypatch, lecture_text):
    import schedcc.report.html as page_module

    monkeypatch.setattr(page_module, "dot_available", lambda: False)
    result = schedule_program(parse(lecture_text, "lecture.ir"), "mips4", explain=True)
    page = report_html(result, lecture_text)
    assert "is not installed, so the DAG is given as DOT text" in page and "digraph" in page
    assert "scheduled order: 9 cycles" in page  # the rest of the page is there


def latin_only_fontconfig(tmp_path: Path) -> dict:
    """An environment in which fontconfig (so Chromium) knows only the DejaVu fonts: a
    machine without any CJK font, like a fresh one without fonts-noto-cjk."""
    dejavu = Path("/usr/share/fonts/truetype/dejavu")
    if not (dejavu / "DejaVuSans.ttf").exists():
        pytest.skip("fonts-dejavu-core is not installed (`python3 tasks.py test` installs it)")
    conf = tmp_path / "fonts.conf"
    conf.write_text(f"""<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>{dejavu}</dir><cachedir>{tmp_path / "fc-cache"}</cachedir></fontconfig>
""")
    return {"FONTCONFIG_FILE": str(conf)}


def shot(page: Path, png: Path, width: int, height: int, env: dict) -> None:
    """A screenshot taken once the page's fonts have loaded (``--screenshot`` does not wait)."""
    from cdp_screenshot import screenshot_when_fonts_ready
    screenshot_when_fonts_ready(find_chromium(), page, png, width, height, env)


def glyph_cells(image, count: int, size: int = 64) -> set[bytes]:
    """The distinct pictures of the first *count* cells of a row of size x size cells."""
    return {image[0:size, i * size:(i + 1) * size, :3].tobytes() for i in range(count)}


@pytest.mark.skipif(find_chromium() is None,
                    reason="chromium is not installed (apt-get install chromium; "
                           "`python3 tasks.py test` installs it)")
def test_chinese_text_renders_without_a_cjk_font(lecture_page, tmp_path):
    """Issue 10: the lecture's Chinese comments rendered as boxes where no CJK font is
    installed. The page now carries the glyphs it needs (a subset of a font of the
    machine that made it), so a browser that has only Latin fonts draws them."""
    pytest.importorskip("fontTools", reason="fontTools is not installed (it is a dependency of schedcc)")
    from schedcc.report.fonts import FAMILY, cjk_characters, cjk_font_face
    page = lecture_page.read_text()
    chars = cjk_characters((ROOT / "examples" / "lecture.ir").read_text())
    assert len(chars) >= 10
    face, note = cjk_font_face(chars)
    if note:
        pytest.skip(f"this machine has no CJK font to embed ({note}); `python3 tasks.py test` installs one")
    assert "@font-face" in page and f'"{FAMILY}"' in page and "unicode-range" in page
    assert len(page) < 200_000  # a subset: a few KiB, not the font's megabytes
    env = latin_only_fontconfig(tmp_path)

    # The characters alone, one per 64-pixel cell, with and without the embedded face:
    # without it every one is the same box (the test can tell), with it each its own glyph.
    cells = "".join(f'<span style="display:inline-block;width:64px;height:64px">{c}</span>' for c in chars)
    for name, css in (("with", face), ("without", "")):
        (tmp_path / f"{name}.html").write_text(
            f'<!DOCTYPE html><html><head><meta charset="utf-8"><style>{css} body {{ margin: 0; '
            f'font: 48px/64px "{FAMILY}", "DejaVu Sans", sans-serif; white-space: nowrap }}</style></head>'
            f"<body>{cells}</body></html>")
        shot(tmp_path / f"{name}.html", tmp_path / f"{name}.png", 64 * len(chars), 64, env)
    with_face = glyph_cells(read_png(tmp_path / "with.png"), len(chars))
    without = glyph_cells(read_png(tmp_path / "without.png"), len(chars))
    assert len(without) < len(chars) // 2, "the browser found a CJK font: this test cannot tell boxes from glyphs"
    assert len(with_face) == len(chars), "some characters drew the same picture: boxes"

    # The report itself: its program listing draws differently with the face than without.
    (tmp_path / "plain.html").write_text(re.sub(r"@font-face \{[^}]*\}[^<]*?\*/ ?", "", page))
    shot(lecture_page, tmp_path / "page.png", 1280, 700, env)
    shot(tmp_path / "plain.html", tmp_path / "plain.png", 1280, 700, env)
    import numpy as np
    a, b = read_png(tmp_path / "page.png"), read_png(tmp_path / "plain.png")
    rows = np.nonzero(np.any(a[..., :3] != b[..., :3], axis=(1, 2)))[0]
    assert len(rows) > 0, "the embedded face changed nothing on the page"
    assert rows.min() > 125, "only the Chinese text may change (the header is above it)"
    keep = os.environ.get("SCHEDCC_SCREENSHOT_DIR")
    if keep:
        shutil.copy(tmp_path / "page.png", Path(keep) / "report-cjk-without-cjk-fonts.png")


def test_cjk_note_when_nothing_can_be_embedded(monkeypatch, lecture_text):
    import schedcc.report.fonts as fonts
    monkeypatch.setattr(fonts, "_candidates", lambda: ())
    notes: list[str] = []
    page = report_html(schedule_program(parse(lecture_text, "lecture.ir"), "mips4"), lecture_text, notes=notes)
    assert "@font-face" not in page and '"schedcc CJK"' in page  # still named in the stacks
    assert notes and "CJK" in notes[0] and "fonts-noto-cjk" in notes[0]
    assert "needs a CJK font where it is viewed" in page  # said on the page too
