"""The page's Python zip (site/assets/course-py.zip) holds what the worker can load and nothing the build
alone needs: every module the shipped views import (read from the source with ast, function-level
imports too), none of c9/figures, and it runs on its own: the views answer from the unpacked zip alone."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile

from c9.views import api
from hooks import modules


def _zip(built_site) -> zipfile.ZipFile:
    return zipfile.ZipFile(built_site / "assets" / "course-py.zip")


def _module(name: str) -> str:
    """c9/views/api.py → c9.views.api; c9/base/__init__.py → c9.base."""
    parts = name.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_the_zip_holds_no_build_only_module(built_site):
    with _zip(built_site) as z:
        names = z.namelist()
    assert not [n for n in names if n.startswith("c9/figures/")]
    assert not [n for n in names if not n.endswith((".py", ".json"))]
    shipped = {_module(n) for n in names if n.endswith(".py")}
    for widget in api.BUILD_ONLY:
        assert f"c9.views.{api.WIDGETS[widget]}" not in shipped, widget
    print(
        f"course-py.zip: {(built_site / 'assets' / 'course-py.zip').stat().st_size:,} B, {len(names)} files"
    )


def test_every_module_a_shipped_module_imports_is_shipped(built_site):
    with _zip(built_site) as z:
        shipped = {_module(n) for n in z.namelist() if n.endswith(".py")}
    graph = modules.graph()
    missing = sorted(
        f"{m} imports {imp.target} (line {imp.line})"
        for m in shipped
        for imp in graph[m]
        if imp.target not in shipped
    )
    assert not missing, "\n".join(missing)
    interactive = {f"c9.views.{m}" for name, m in api.WIDGETS.items() if name not in api.BUILD_ONLY}
    assert {"c9", "c9.base", "c9.core", "c9.views", "c9.views.api"} | interactive <= shipped


def test_build_only_widgets_are_the_ones_without_a_view():
    assert api.BUILD_ONLY == {
        name for name, m in zip(api.WIDGETS, api.widget_modules()) if not hasattr(m, "view")
    }
    for name in api.BUILD_ONLY:
        assert json.loads(api.handle(json.dumps({"widget": name})))["error"] == "这个组件不需要 Python 计算"


# Run in a Python that sees only the unpacked zip: each interactive widget answers its default and the
# states around it (nearby() reaches the function-level imports), and every c9 module it loaded came
# from the zip.
ALONE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from c9.views import api
out = {}
for name in api.WIDGETS:
    if name in api.BUILD_ONLY:
        continue
    request = json.dumps({"widget": name, "params": {}})
    out[name] = [json.loads(api.handle(request))["ok"], len(api.nearby(request))]
outside = [m.__file__ for k, m in sys.modules.items() if k.split(".")[0] == "c9" and not m.__file__.startswith(sys.argv[1])]
print(json.dumps({"answers": out, "outside": outside}))
"""


def test_the_views_run_from_the_zip_alone(built_site, tmp_path):
    with _zip(built_site) as z:
        z.extractall(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-I", "-c", ALONE, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr  # api.handle prints a failure it turns into a message
    got = json.loads(proc.stdout)
    assert got["outside"] == []
    assert set(got["answers"]) == set(api.WIDGETS) - api.BUILD_ONLY
    assert all(ok for ok, _ in got["answers"].values()), got
    with_nearby = [name for name, m in zip(api.WIDGETS, api.widget_modules()) if hasattr(m, "nearby")]
    assert with_nearby and all(got["answers"][name][1] > 0 for name in with_nearby), got
