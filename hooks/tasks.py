"""The prediction tasks' controls, written into the page by the build.

A task is a Markdown admonition "task": a list of choices (the right one marked ``{: .correct }``) and a
collapsible answer. Each choice becomes a radio button in a label, and a 「核对」 button and an empty verdict
line follow the list, so that the page is laid out at load exactly as it is once `task.js` listens: the
script only wires these controls, and nothing below a task moves when it mounts (a jump to a heading
further down lands and stays). Without scripts the radios and the button are hidden by course.css and the
reader opens the answer.
"""

from __future__ import annotations

import re

# The first list of a task, whose items are the choices (the task's answer is a <details> after it).
_TASK = re.compile(r'(<div class="admonition task">.*?)<ul>\n(.*?)</ul>\n', re.S)
_ITEM = re.compile(r"<li( class=\"correct\")?>(.*?)</li>\n?", re.S)


def add_controls(html: str) -> str:
    """`html` with each task's choices as radio buttons named per task, then the check button and the
    verdict line. A task without a list is left as it is. Each choice's text is one <span>: the label is a
    flex row (radio, text), and its math and figures would otherwise each be a flex item of their own."""
    count = 0

    def task(m: re.Match) -> str:
        nonlocal count
        count += 1
        name = f"c9-task-{count}"
        items = "".join(
            f'<li{cls or ""}><label class="c9-choice"><input type="radio" name="{name}" value="{i}"> '
            f"<span>{body}</span></label></li>\n"
            for i, (cls, body) in enumerate(_ITEM.findall(m[2]))
        )
        return (
            f'{m[1]}<ul class="c9-task-choices">\n{items}</ul>\n'
            '<button type="button" class="md-button c9-task-check">核对</button>\n'
            '<p class="c9-verdict" aria-live="polite"></p>\n'
        )

    return _TASK.sub(task, html)
