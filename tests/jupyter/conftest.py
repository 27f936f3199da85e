"""Fixtures for the notebook layer: a real ipykernel (tests/kernel_harness.py) and an isolated
project."""

from __future__ import annotations

from pathlib import Path

import pytest
from kernel_harness import KernelDriver, isolated_env

__all__ = ["KernelDriver", "isolated_env"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def kernel(project: Path, tmp_path: Path):
    driver = KernelDriver(project, isolated_env(tmp_path))
    try:
        yield driver
    finally:
        driver.stop()
