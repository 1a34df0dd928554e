"""README is the user's door: its table of experiments is the registry's, generated."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.slow
def test_experiment_table_is_generated_from_the_registry():
    text = README.read_text()
    block = re.search(r"<!-- experiments:start[^\n]*-->\n(.*?)\n<!-- experiments:end -->", text, re.S)
    assert block, "README lost its generated table markers"
    generated = subprocess.run(
        [sys.executable, "-m", "privlab.cli", "list", "--markdown"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert block.group(1).strip() == generated, "README's table is stale: paste `privlab list --markdown`"
