"""The README's usage example runs as written."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "README has a python example"
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    assert not namespace["env"].agents, "the example plays an episode to its end"


def test_readme_test_command_is_the_ci_command():
    ci = (README.parent / ".ci" / "run").read_text()
    assert "OMP_NUM_THREADS=1 python -m pytest -q" in README.read_text()
    assert "OMP_NUM_THREADS=1 python -m pytest -q" in ci
