"""pyproject.toml in the form the build backend reads without deprecation warnings."""

import re
import tomllib
from pathlib import Path

PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())


def test_the_licence_is_an_spdx_expression_and_setuptools_reads_it():
    # A `{ text = … }` table makes setuptools warn three times on every install.
    assert PYPROJECT["project"]["license"] == "MIT"
    setuptools = next(r for r in PYPROJECT["build-system"]["requires"] if "setuptools" in r)
    minimum = re.fullmatch(r"setuptools>=(\d+)", setuptools)
    assert minimum and int(minimum[1]) >= 77  # the first to read SPDX expressions (PEP 639)
