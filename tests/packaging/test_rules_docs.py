"""The rules of the three games live in the repository (docs/rules/), complete and with the project's
decisions inline, and no document points outside the clone (issue #21, item 1)."""

from __future__ import annotations

import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules"

RULE_IDS = {
    "quatro": [f"Q{i}" for i in range(1, 32)],
    "kwartet": [f"K{i}" for i in range(1, 10)] + ["K9b", "K10"],
    "cuatrola": [f"C{i}" for i in range(1, 12)],
}


def _rule_heads(game: str) -> list[str]:
    return re.findall(r"^- \*\*([QKC]\d+b?) ", (RULES / f"{game}.md").read_text(), flags=re.M)


@pytest.mark.parametrize("game", sorted(RULE_IDS))
def test_every_rule_id_is_written_out_once(game: str) -> None:
    assert _rule_heads(game) == RULE_IDS[game]


def _prose(path: Path) -> str:
    """The comments and string literals of a module: where rule ids are cited (not variable names)."""
    with path.open("rb") as f:
        kinds = (tokenize.COMMENT, tokenize.STRING)
        return "\n".join(tok.string for tok in tokenize.tokenize(f.readline) if tok.type in kinds)


@pytest.mark.parametrize("game", sorted(RULE_IDS))
def test_rule_ids_cited_by_the_code_exist(game: str) -> None:
    """Every rule id the package cites (``# Q14``, docstrings) names a rule written out on the page."""
    letter = RULE_IDS[game][0][0]
    cited: set[str] = set()
    for path in (ROOT / "quatro_env").rglob("*.py"):
        cited |= set(re.findall(rf"\b({letter}\d+b?)\b", _prose(path)))
    assert cited, f"no {letter}-rule cited in quatro_env"
    assert cited <= set(RULE_IDS[game]), sorted(cited - set(RULE_IDS[game]))


def _test_citations(letter: str) -> set[str]:
    """Rule ids named by a test function of tests/ (in its name, ``test_q14_...``, or its docstring)."""
    import ast

    cited: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                text = f"{node.name} {ast.get_docstring(node) or ''}"
                cited |= {
                    m.upper().replace("B", "b")
                    for m in re.findall(rf"(?i)(?<![a-z0-9])({letter}\d+b?)(?![0-9])", text)
                }
    return cited


@pytest.mark.parametrize("game", sorted(RULE_IDS))
def test_every_rule_has_a_test_that_cites_it(game: str) -> None:
    """The project's standard: each rule has a test that cites it, by its name or docstring (all 53 did
    when this was written; a renamed test would have gone unnoticed)."""
    cited = _test_citations(RULE_IDS[game][0][0])
    assert not set(RULE_IDS[game]) - cited, sorted(set(RULE_IDS[game]) - cited)


def _squash(text: str) -> str:
    return " ".join(text.split())


def _decisions(doc: str, header: str, item: str) -> dict[str, str]:
    """The decisions list of a game's page: {id: text with whitespace squashed}."""
    section = (ROOT / "docs" / doc).read_text().split(header, 1)[1]
    section = re.split(r"\n## ", section, maxsplit=1)[0]
    found: dict[str, str] = {}
    for block in re.split(r"\n(?=\S)", section):
        match = re.match(item, block)
        if match:
            found[match.group(1)] = _squash(block[match.end() :])
    return found


@pytest.mark.parametrize(
    ("game", "doc", "header", "item", "note"),
    [
        (
            "quatro",
            "quatro.md",
            "## Decisions added by the project",
            r"(\d+)\. ",
            r"Project decision (\d+)\*",
        ),
        (
            "cuatrola",
            "cuatrola.md",
            "## Decisions where the rules are silent",
            r"- \*\*(D\d+) ",
            r"Project decision (D\d+)\*",
        ),
        (
            "kwartet",
            "kwartet.md",
            "## Decisions where the rules are silent",
            r"\* \*\*(.+?)\.?\*\*",
            r"Project decision — (.+?)\* \(",
        ),
    ],
)
def test_every_project_decision_is_inline_in_the_rules(
    game: str, doc: str, header: str, item: str, note: str
) -> None:
    """Each decision of the game's page is written out, word for word, beside the rule it refines."""
    listed = _decisions(doc, header, item)
    assert len(listed) >= 10
    page = (RULES / f"{game}.md").read_text()
    assert sorted(re.findall(note, page)) == sorted(listed)
    squashed = _squash(page)
    missing = [key for key, text in listed.items() if _squash(text.split("**", 1)[-1])[:60] not in squashed]
    assert missing == []


def test_no_document_links_outside_the_clone() -> None:
    docs = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    bad = [
        str(p.relative_to(ROOT))
        for p in docs
        if "../shared" in p.read_text() or "shared/rules" in p.read_text()
    ]
    assert bad == []
