"""The README's code table is generated from the registry and must stay current."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_code_table_is_current():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_readme_codes.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_readme_first_two_commands_are_the_contract():
    text = (ROOT / "README.md").read_text()
    blocks = [b.split("```", 1)[0].strip() for b in text.split("```sh\n")[1:3]]
    assert blocks[0] == "pip install . && dractl allocate --inventory builtin:example-gpu examples/gpu-pod.yaml"
    assert blocks[1] == "pip install '.[test]' && python -m pytest -q"
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install --quiet '.[test]' && python -m pytest -q" in ci
