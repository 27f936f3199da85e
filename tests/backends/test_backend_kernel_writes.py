"""The kernel side of ``JupyterKernelBackend.write_stream`` (the helpers it installs in the
kernel), run here in-process: a full disk during a write leaves the target as it was and no
temp file beside it, whether the failure comes at a chunk, at the close (its flush) or at the
rename."""

from __future__ import annotations

import errno

import pytest

from jupyter_agenttools.backends import jupyter_kernel


@pytest.fixture
def kernel_ns() -> dict:
    ns: dict = {}
    exec(jupyter_kernel._KERNEL_SOURCE, ns)
    return ns


class _Full:
    """A file whose data never reaches the disk: ENOSPC at ``at`` ("write" or "close")."""

    def __init__(self, real, at: str):
        self.real, self.at = real, at

    def write(self, data: bytes) -> int:
        if self.at == "write":
            raise OSError(errno.ENOSPC, "No space left on device")
        return self.real.write(data)

    def close(self) -> None:
        self.real.close()
        if self.at in ("write", "close"):
            raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("at", ["write", "close", "rename"])
def test_a_failed_kernel_write_leaves_the_target_and_no_temp_file(kernel_ns, tmp_path, at,
                                                                   monkeypatch):
    target = tmp_path / "notes.md"
    target.write_text("the old text\n")
    kernel_ns["_agt_write_begin"]("t1", str(target))
    f, tmp, path = kernel_ns["_agt_writes"]["t1"]
    kernel_ns["_agt_writes"]["t1"] = (_Full(f, at), tmp, path)
    ok = True
    if at == "write":
        with pytest.raises(OSError):
            kernel_ns["_agt_write_chunk"]("t1", "bmV3IHRleHQK")
        ok = False  # the host then ends the write without committing it
    if at == "rename":
        def refuse(*args):
            raise OSError(errno.EROFS, "Read-only file system")
        monkeypatch.setattr(kernel_ns["_o"], "replace", refuse)
    if at == "close":
        kernel_ns["_agt_write_chunk"]("t1", "bmV3IHRleHQK")
    with pytest.raises(OSError):
        kernel_ns["_agt_write_end"]("t1", ok)
    assert target.read_text() == "the old text\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.md"]
    assert kernel_ns["_agt_writes"] == {}
