"""The gates every tool call passes, in this order (SPEC §3).

1. availability — ``gates.availability.check_available`` (the toolkit's ``get_tool``);
2. arguments — ``gates.arguments.parse_arguments`` (json → json_repair → jsonschema);
3. permission — ``gates.permission.check_permission`` (middlewares around ``engine.decide``);
4. execution — ``Toolkit.call_tool`` wrapped by execution middlewares (``agent/loop.py``);
5. finish — ``tools.truncate.truncate_response``, then the result goes back to the model.

A failing gate gives the model an error tool result; the run continues.
"""

GATES = ("availability", "arguments", "permission", "execution", "finish")

__all__ = ["GATES"]
