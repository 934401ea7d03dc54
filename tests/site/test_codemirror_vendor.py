"""hooks/codemirror.py: CodeMirror's ES modules published with every bare import pointed at a sibling file,
so that the browser loads them without a bundler or an import map (which the strict CSP would refuse)."""

from __future__ import annotations

import re

import pytest

from hooks import codemirror
from hooks.course import NODE_MODULES

pytestmark = pytest.mark.timeout(60)


def test_bare_imports_are_rewritten_and_relative_ones_and_comments_left():
    src = (
        "import { EditorState } from '@codemirror/state';\n"
        'export { StringStream } from "@codemirror/streamparser";\n'
        "import { x } from './local.js';\n"
        "import {\n  a,\n  b\n} from '@lezer/common';\n"
        "import 'style-mod';\n"
        '// grammar file as `@context exportName from "module"`.\n'
    )
    out = codemirror.rewrite(src)
    assert "from './codemirror-state.js'" in out
    assert 'from "./codemirror-streamparser.js"' in out
    assert "} from './lezer-common.js'" in out and "import './style-mod.js'" in out
    assert "from './local.js'" in out and 'from "module"' in out
    with pytest.raises(ValueError, match="left-pad"):
        codemirror.rewrite("import pad from 'left-pad';\n")


def test_published_modules_import_only_each_other(tmp_path):
    codemirror.publish(NODE_MODULES, tmp_path)
    folder = tmp_path / codemirror.FOLDER
    names = {p.name for p in folder.iterdir()}
    assert names == {codemirror.file_name(p) for p in codemirror.PACKAGES}
    spec = re.compile(r"""^\s*(?:import|export|\}).*?(?:\bfrom\s*|^\s*import\s*)['"]([^'"]+)['"]""", re.M)
    seen = 0
    for path in folder.iterdir():
        for target in spec.findall(path.read_text(encoding="utf-8")):
            assert target.startswith("./") and target[2:] in names, (path.name, target)
            seen += 1
    assert seen >= 20  # the packages' imports of each other were found, not skipped
