"""A CJK font for the report, embedded: Chinese (Japanese, Korean) text renders
wherever the page is opened, with or without a CJK font on that machine.

The page names the usual CJK families in its font stacks; a machine without
any of them would show boxes. So when the page contains CJK characters,
:func:`cjk_font_face` finds a font on *this* machine that has them all
(fontconfig's ``fc-list :lang=zh``/``ja``/``ko``, else the usual font
folders), keeps just those glyphs (fontTools' subsetter: a few KiB for a
few dozen characters) and returns an ``@font-face`` rule for the family
:data:`FAMILY` with the subset as a WOFF ``data:`` URI and a ``unicode-range``
of exactly those characters. The page's font stacks begin with that family:
its range keeps it to those characters (Latin text keeps its fonts), and a
web font named only after the installed ones is, in Chromium, not used for
the first text that falls back to it (it draws boxes there), so it cannot
come last.

Without such a font or without fontTools the rule is empty and the note says
what the page needs. Example::

    >>> cjk_characters("x = 1  # 面向目标机器, 面向")
    '向器机标目面'
    >>> cjk_font_face("plain ASCII")
    ('', None)
"""

from __future__ import annotations

import base64
import functools
import io
import logging
import os
import shutil
import subprocess
from pathlib import Path

FAMILY = "schedcc CJK"

# CJK symbols and punctuation, kana, CJK unified ideographs (and extension A),
# Hangul syllables, compatibility ideographs, fullwidth forms
_RANGES = ((0x3000, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF),
           (0xFF00, 0xFFEF))
# Families tried first (most complete first); any other CJK font after them.
_PREFERRED = ("Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans SC", "WenQuanYi Micro Hei",
              "WenQuanYi Zen Hei", "Droid Sans Fallback", "AR PL UMing CN", "PingFang SC", "Microsoft YaHei")
_FOLDERS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts",
            "/System/Library/Fonts", "/Library/Fonts", "C:/Windows/Fonts")
_NAME_HINTS = ("cjk", "wqy", "han", "droidsansfallback", "uming", "ukai", "msyh", "simsun", "pingfang",
               "hiragino", "nanum", "ipag", "takao")


def _is_cjk(ch: str) -> bool:
    o = ord(ch)
    return any(lo <= o <= hi for lo, hi in _RANGES)


def cjk_characters(text: str) -> str:
    """The distinct CJK characters of *text*, in code point order."""
    return "".join(sorted({ch for ch in text if ord(ch) >= 0x3000 and _is_cjk(ch)}))


def _fontconfig_candidates() -> list[tuple[str, int, str]]:
    """(file, face index, family) of the CJK fonts fontconfig knows."""
    if not shutil.which("fc-list"):
        return []
    out: list[tuple[str, int, str]] = []
    for lang in ("zh", "ja", "ko"):
        try:
            text = subprocess.run(["fc-list", "-f", "%{file}\t%{index}\t%{family}\n", f":lang={lang}"],
                                  capture_output=True, text=True, timeout=20).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        for line in text.splitlines():
            parts = line.split("\t")
            if len(parts) == 3 and parts[1].isdigit():
                out.append((parts[0], int(parts[1]), parts[2].split(",")[0]))
    return out


def _folder_candidates() -> list[tuple[str, int, str]]:
    out = []
    for folder in _FOLDERS:
        root = Path(os.path.expanduser(folder))
        if not root.is_dir():
            continue
        for path in root.rglob("*"):
            if path.suffix.lower() in (".ttf", ".otf", ".ttc") and \
                    any(h in path.name.lower().replace("-", "").replace("_", "") for h in _NAME_HINTS):
                out.append((str(path), 0, path.stem))
    return out


def _rank(candidate: tuple[str, int, str]) -> tuple:
    file, index, family = candidate
    mono = "mono" in family.lower()
    pref = next((i for i, f in enumerate(_PREFERRED) if family.lower().startswith(f.lower())), len(_PREFERRED))
    return (mono, pref, file, index)


@functools.lru_cache(maxsize=1)
def _candidates() -> tuple[tuple[str, int, str], ...]:
    seen = set()
    found = []
    for c in sorted(_fontconfig_candidates() or _folder_candidates(), key=_rank):
        if (c[0], c[1]) not in seen:
            seen.add((c[0], c[1]))
            found.append(c)
    return tuple(found)


def _subset_woff(file: str, index: int, chars: str) -> bytes | None:
    """The glyphs of *chars* from face *index* of *file* as a WOFF font, or None when
    the face lacks one of them."""
    from fontTools import subset
    from fontTools.ttLib import TTFont
    logging.getLogger("fontTools").setLevel(logging.ERROR)  # "table X not subset" chatter
    font = TTFont(file, fontNumber=index, lazy=True) if file.lower().endswith(".ttc") else TTFont(file, lazy=True)
    cmap = font.getBestCmap() or {}
    if not all(ord(c) in cmap for c in chars):
        return None
    font = TTFont(file, fontNumber=index) if file.lower().endswith(".ttc") else TTFont(file)
    options = subset.Options()
    options.flavor = "woff"            # zlib-compressed; WOFF2 would need brotli
    options.layout_features = []       # no shaping needed for these scripts
    options.hinting = False
    options.name_IDs = [1, 2]
    options.notdef_outline = True
    sub = subset.Subsetter(options)
    sub.populate(unicodes=[ord(c) for c in chars])
    sub.subset(font)
    buf = io.BytesIO()
    font.flavor = "woff"
    font.save(buf)
    return buf.getvalue()


def _unicode_range(chars: str) -> str:
    return ", ".join(f"U+{ord(c):04X}" for c in chars)


def cjk_font_face(text: str) -> tuple[str, str | None]:
    """(the ``@font-face`` CSS for the CJK characters of *text*, a note or None).

    The CSS is empty when *text* has no CJK character, or when no font of this
    machine has them all or fontTools is not installed; then the note says so."""
    chars = cjk_characters(text)
    if not chars:
        return "", None
    try:
        import fontTools  # noqa: F401
    except ImportError:
        return "", ("the page's CJK text is not embedded (fontTools is not installed: pip install fonttools); "
                    "it needs a CJK font where it is viewed")
    for file, index, family in _candidates():
        try:
            woff = _subset_woff(file, index, chars)
        except Exception:  # noqa: BLE001 - a font fontTools cannot read: try the next one
            continue
        if woff is None:
            continue
        data = base64.b64encode(woff).decode("ascii")
        css = (f'@font-face {{ font-family: "{FAMILY}"; src: url(data:font/woff;base64,{data}) format("woff"); '
               f"unicode-range: {_unicode_range(chars)}; }} /* {len(chars)} characters of {family} */")
        return css, None
    return "", (f"no font on this machine has all {len(chars)} CJK characters of the page, so none is "
                "embedded; it needs a CJK font where it is viewed (e.g. apt-get install fonts-noto-cjk)")
