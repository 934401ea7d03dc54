"""The site's JavaScript passes ESLint's recommended rules (eslint.config.js; `npm run lint`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_javascript_passes_eslint():
    out = subprocess.run(["npm", "run", "--silent", "lint"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
