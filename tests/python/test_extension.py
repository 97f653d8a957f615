"""The installed extension module searches no relative folder for its shared libraries (tests/cmake/rpath_test.py
checks the build tree's binaries)."""
import shutil
import sys

import pytest

import reluopt._core
from conftest import ROOT

sys.path.insert(0, str(ROOT / "tests" / "cmake"))
from rpath_test import unsafe_search_entries  # noqa: E402


@pytest.mark.skipif(shutil.which("readelf") is None, reason="needs readelf (binutils)")
def test_extension_rpath_is_absolute():
    assert unsafe_search_entries(reluopt._core.__file__) == []
