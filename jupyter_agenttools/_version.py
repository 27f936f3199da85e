"""The one version of the package: pyproject.toml reads it ([tool.hatch.version]) and
labextension/package.json must carry the same (tests/core/test_core_packaging.py checks)."""

__version__ = "0.1.0"
