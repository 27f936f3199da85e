import sys
from pathlib import Path

# Shared test helpers (tests/lab_harness.py) importable from every test folder.
sys.path.insert(0, str(Path(__file__).resolve().parent))
