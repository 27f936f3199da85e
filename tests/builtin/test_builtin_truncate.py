"""tools/truncate.py: the one cut-and-offload mechanism (truncate_response, OutputSpool)."""

from __future__ import annotations

import pytest

from jupyter_agenttools.tools.base import ToolResponse, ToolResultState, text_block
from jupyter_agenttools.tools.truncate import OutputSpool, truncate_response

IMAGE = {"type": "image", "data": "aGVsbG8=", "mime_type": "image/png"}


def test_a_response_within_budget_is_returned_as_is(tmp_path):
    r = ToolResponse([text_block("short")], metadata={"k": 1})
    assert truncate_response(r, budget_chars=5, offload_dir=tmp_path) is r
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("budget", [0, 10, 1000, 9_999])
def test_over_budget_keeps_head_and_tail_and_offloads_the_full_text(tmp_path, budget):
    full = "".join(f"line {i}\n" for i in range(2000)) + "ünïcødé end"
    r = ToolResponse([text_block(full[:500]), IMAGE, text_block(full[500:])],
                     state=ToolResultState.ERROR, metadata={"exit_code": 2}, id="c1",
                     name="Bash")
    cut = truncate_response(r, budget_chars=budget, offload_dir=tmp_path)
    path = cut.metadata["offload_path"]
    with open(path, encoding="utf-8") as f:
        assert f.read() == full  # the FULL text, not just the part that was cut
    head_n = budget - int(budget * 0.2)
    tail_n = budget - head_n
    text = cut.text
    assert text.startswith(full[:head_n])
    if tail_n:
        assert full[-tail_n:] in text
    assert path in text and f"{len(full):,} characters" in text
    assert len(text) - len(text.split("\n[Output truncated")[0]) < 400  # notice is short
    assert cut.content[1:] == [IMAGE]  # images untouched
    assert cut.metadata["exit_code"] == 2 and cut.metadata["truncated"] is True
    assert cut.metadata["original_chars"] == len(full)
    assert (cut.state, cut.id, cut.name) == (ToolResultState.ERROR, "c1", "Bash")
    assert r.text == full  # the input is not modified


def test_each_offload_gets_its_own_file(tmp_path):
    r = ToolResponse([text_block("x" * 100)], name="Read")
    a = truncate_response(r, budget_chars=10, offload_dir=tmp_path)
    b = truncate_response(r, budget_chars=10, offload_dir=tmp_path)
    assert a.metadata["offload_path"] != b.metadata["offload_path"]
    assert len(list(tmp_path.iterdir())) == 2
    assert all(p.name.startswith("Read-") for p in tmp_path.iterdir())


def test_negative_budget_is_refused(tmp_path):
    with pytest.raises(ValueError, match="budget_chars"):
        truncate_response(ToolResponse([text_block("x")]), budget_chars=-1,
                          offload_dir=tmp_path)


@pytest.mark.parametrize("piece", [1, 7, 333, 5000])
def test_spool_streams_the_head_keeps_a_tail_and_files_everything(tmp_path, piece):
    full = "".join(f"{i}\n" for i in range(3000))
    spool = OutputSpool(budget_chars=1000, offload_dir=tmp_path, name="Bash")
    shown = "".join(spool.feed(full[i:i + piece]) for i in range(0, len(full), piece))
    closing = spool.finish()
    assert shown == full[:800]  # head: 80 % of the budget, passed through live
    assert closing.startswith(f"\n[… {len(full) - 1000:,} characters omitted …]\n")
    assert full[-200:] in closing
    assert spool.truncated and spool.total_chars == len(full)
    with open(spool.path, encoding="utf-8") as f:
        assert f.read() == full


def test_spool_within_budget_writes_no_file(tmp_path):
    spool = OutputSpool(budget_chars=100, offload_dir=tmp_path)
    assert spool.feed("hello ") + spool.feed("world") == "hello world"
    assert spool.finish() == "" and not spool.truncated
    assert list(tmp_path.iterdir()) == []
