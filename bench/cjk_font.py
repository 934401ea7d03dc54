"""A CJK system font for one benchmark run, as a Chinese reader's machine has one: Debian's fonts-noto-cjk
(Noto Sans CJK SC, which the course's font stack names before its own web font), unpacked into .cache/ and
added to fontconfig for the processes given the returned environment only. The machine's own fonts are
left as they are, so the tests (which check the web font where no CJK font is installed) see no change.

Needs apt-get (Debian's package registry) the first time; later runs reuse the unpacked files."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "fonts-noto-cjk"
PACKAGE = "fonts-noto-cjk"
# Regular and bold: the weights the pages use (body text and headings).
FILES = ("NotoSansCJK-Regular.ttc", "NotoSansCJK-Bold.ttc")


def _unpack() -> Path:
    fonts = CACHE / "fonts"
    if all((fonts / name).exists() for name in FILES):
        return fonts
    fonts.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            ["apt-get", "download", PACKAGE], cwd=tmp, check=True, capture_output=True, timeout=600
        )
        deb = next(Path(tmp).glob(f"{PACKAGE}_*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(Path(tmp) / "x")], check=True, timeout=600)
        for name in FILES:
            found = next((Path(tmp) / "x").rglob(name))
            found.replace(fonts / name)
    return fonts


def system_font_env() -> dict[str, str]:
    """Environment variables under which Chromium finds Noto Sans CJK SC as an installed font.
    Raises subprocess.CalledProcessError when the package cannot be fetched."""
    fonts = _unpack()
    conf = CACHE / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n'
        f"  <dir>{fonts}</dir>\n  <cachedir>{CACHE / 'fc-cache'}</cachedir>\n</fontconfig>\n",
        encoding="utf-8",
    )
    return {"FONTCONFIG_FILE": str(conf)}
