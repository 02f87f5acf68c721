"""The docs site's lists render as lists: Python-Markdown (what mkdocs uses) needs a blank line between
a paragraph and the list after it; without one the items run on as text ("* **PPO**: ..."), which
``mkdocs build --strict`` does not report. 77 such lines were found on four pages (2026-12-06). And
Python-Markdown nests a list only 4 spaces deep: 102 items nested 2 spaces deep rendered flat (a rule's
project decisions as rules of their own, C6's obligations numbered on into the next bullets), until
the pages were re-indented (2026-12-07)."""

from __future__ import annotations

import re
from pathlib import Path

import markdown
import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").rglob("*.md"))
LIST_ITEM = re.compile(r"\s*([*+-]|\d+\.)\s")


def run_on_items(text: str) -> list[str]:
    """The lines of rendered paragraphs that start like a list item: a list Markdown did not see."""
    html = markdown.markdown(text, extensions=["tables", "toc", "admonition", "fenced_code"])
    return [
        line.strip()[:80]
        for paragraph in re.findall(r"<p>(.*?)</p>", html, flags=re.S)
        for line in paragraph.split("\n")[1:]
        if LIST_ITEM.match(line)
    ]


def items_of_the_other_kind(text: str) -> int:
    """Bullet items rendered inside a numbered list, or numbered items inside a bullet list."""
    marked = []
    for line in text.split("\n"):  # tag each source item with its kind (fenced code has none at col 0-3)
        line = re.sub(r"^(\s*)([*+-])\s", r"\1\2 BULLETX ", line)
        marked.append(re.sub(r"^(\s*)(\d+)\.\s", r"\1\2. ORDERX ", line))
    html = markdown.markdown("\n".join(marked), extensions=["tables", "toc", "admonition", "fenced_code"])
    kinds, wrong = [], 0
    for tag in re.finditer(r"</?(ol|ul)>|<li>(BULLETX|ORDERX)", html):
        if tag.group(0) in ("<ol>", "<ul>"):
            kinds.append(tag.group(1))
        elif tag.group(0) in ("</ol>", "</ul>"):
            kinds.pop()
        elif kinds:
            wrong += (tag.group(2) == "BULLETX") == (kinds[-1] == "ol")
    return wrong


def items_at_the_wrong_depth(text: str) -> list[str]:
    """Items indented in the source but rendered at the top level, or the reverse."""
    marked, fenced = [], False
    for line in text.split("\n"):  # tag each source item: indented or not (none inside fenced code)
        fenced ^= line.lstrip().startswith("```")
        if not fenced:
            line = re.sub(r"^(\s*)([*+-]|\d+\.)\s", lambda m: f"{m[0]}{'NESTX' if m[1] else 'TOPX'} ", line)
        marked.append(line)
    html = markdown.markdown("\n".join(marked), extensions=["tables", "toc", "admonition", "fenced_code"])
    depth, wrong = 0, []
    for tag in re.finditer(r"<(/?)(?:ol|ul)>|<li>(?:<p>)?(NESTX|TOPX)([^<]{0,40})", html):
        if tag.group(2):
            if (tag.group(2) == "NESTX") != (depth > 1):
                wrong.append(tag.group(3).strip())
        else:
            depth += -1 if tag.group(1) else 1
    return wrong


def test_the_check_sees_a_list_glued_to_its_paragraph():
    assert run_on_items("Two things:\n* one\n* two\n") == ["* one", "* two"]
    assert run_on_items("Two things:\n\n* one\n* two\n") == []


def test_the_check_sees_a_bullet_numbered_on():
    nested = "* top\n\n  Steps:\n\n  1. one\n  2. two\n* next top\n"
    assert items_of_the_other_kind(nested) == 1
    assert items_of_the_other_kind(nested.replace("\n* next", "\n\n<!-- -->\n\n* next")) == 0


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_list_renders_as_a_list(page: Path):
    text, name = page.read_text(), str(page.relative_to(ROOT))
    assert run_on_items(text) == []
    assert items_of_the_other_kind(text) == 0
    assert items_at_the_wrong_depth(text) == [], name


def test_the_check_sees_a_list_nested_two_spaces_deep():
    assert items_at_the_wrong_depth("* top\n  * nested\n* next\n") == ["nested"]
    assert items_at_the_wrong_depth("* top\n    * nested\n* next\n") == []
    assert items_at_the_wrong_depth("1. top\n\n    more\n\n    * nested\n* next\n") == ["next"]
