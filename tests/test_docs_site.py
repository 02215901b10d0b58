"""The documentation site builds with MkDocs in strict mode (a warning is an error: a broken link, an anchor that
is not there, a page left out of the navigation, a docstring the API reference cannot read), and loads nothing
from the network."""

import re
import subprocess
import sys

import pytest

from tests.helpers import REPO


@pytest.mark.slow
def test_the_site_builds_strictly_with_the_api_reference(tmp_path):
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
                           cwd=REPO, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0 and "WARNING" not in built.stderr, built.stderr
    reference = (tmp_path / "reference.html").read_text(encoding="utf-8")
    for name in ("lofkit.load", "lofkit.check", "lofkit.LofVerdict", "lofkit.World"):
        assert f'id="{name}"' in reference, name
    for page in tmp_path.glob("*.html"):
        fetched = re.findall(r'<(?:script|img|link)[^>]*(?:src|href)="(https?:)?//', page.read_text(encoding="utf-8"))
        assert not fetched, f"{page.name} loads something from the network"
