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


def test_ci_quiet_install_still_fails_on_a_failed_command():
    """``.ci/run``'s ``quiet`` filters pip's noise; its ``|| true`` once covered the whole pipeline, so a
    failed ``pip install`` never stopped CI (an integrations venv then skipped its tests)."""
    import re
    import subprocess

    ci = (README.parent / ".ci" / "run").read_text()
    quiet = re.search(r"^quiet\(\) \{.*\}$", ci, re.M).group(0)
    script = f"set -euo pipefail\n{quiet}\nquiet true\nquiet echo kept\nquiet false\necho survived\n"
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
    assert proc.returncode != 0 and proc.stdout == "kept\n", (proc.returncode, proc.stdout)


def test_ci_requires_every_integration_in_its_integrations_venv():
    """Outside that venv the integration tests skip; there a failed import must fail (tests/extras.py)."""
    ci = (README.parent / ".ci" / "run").read_text()
    assert "QUATRO_REQUIRE_INTEGRATIONS=1 python -m pytest -q -p no:cacheprovider tests/integrations" in ci


def test_a_missing_integration_skips_or_fails_as_the_switch_says(monkeypatch):
    import pytest

    from tests.extras import REQUIRE_INTEGRATIONS, integration_module

    monkeypatch.delenv(REQUIRE_INTEGRATIONS, raising=False)
    with pytest.raises(pytest.skip.Exception):
        integration_module("no_such_integration_package")
    monkeypatch.setenv(REQUIRE_INTEGRATIONS, "1")
    with pytest.raises(pytest.fail.Exception, match="does not import"):
        integration_module("no_such_integration_package")
