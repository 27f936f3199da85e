"""Gate 2 compiles one validator per schema object and never serves a stale one."""

import pytest

from jupyter_agenttools.errors import ToolArgumentsError
from jupyter_agenttools.gates.arguments import parse_arguments
from jupyter_agenttools.tools.function import FunctionTool


def count(n: int) -> int:
    """Count.

    Args:
        n: how many.
    """
    return n


def test_a_replaced_schema_is_validated_with_its_own_validator():
    tool = FunctionTool(count)
    assert parse_arguments(tool, '{"n": 3}') == {"n": 3}
    with pytest.raises(ToolArgumentsError, match="n"):
        parse_arguments(tool, '{"n": "three"}')
    # the same tool with a different schema object: the new rule applies at once
    tool.input_schema = {"type": "object", "properties": {"n": {"type": "string"}},
                         "required": ["n"]}
    assert parse_arguments(tool, '{"n": "three"}') == {"n": "three"}
    with pytest.raises(ToolArgumentsError):
        parse_arguments(tool, '{"n": 3}')
