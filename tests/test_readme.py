"""The README's usage examples run as written."""

import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_the_three_games_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_example_runs(index):
    namespace: dict = {}
    exec(compile(BLOCKS[index], f"README.md example {index}", "exec"), namespace)
    env = namespace["env"]
    assert not env.agents, "each example plays an episode to its end"


def test_readme_test_command_is_the_ci_command():
    ci = (README.parent / ".ci" / "run").read_text()
    assert "OMP_NUM_THREADS=1 python -m pytest -q" in README.read_text()
    assert "OMP_NUM_THREADS=1 python -m pytest -q" in ci
