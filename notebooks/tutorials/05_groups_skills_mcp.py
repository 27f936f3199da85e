"""Tutorial 05 · Groups, `reset_tools`, skills and MCP"""

from _tutorial import setup

CELLS = [
    ("md", """\
# 05 · Groups, `reset_tools`, skills and MCP

Tools in the `basic` group are always offered to the model. Other groups start inactive; the
model switches them on with the `reset_tools` meta tool (one boolean per group: the final
state, not a change). Skills are folders with a `SKILL.md`: only their names and descriptions
go into the prompt, the model reads one with the `Skill` tool. MCP servers add their tools as
`mcp__<server>__<tool>`."""),
    ("code", setup("05")),
    ("code", '''\
MCP_SERVER = str(here / "mcp_demo_server.py")
%agent group data --description "Tools for tabular data" --instructions "Load a table before you summarise it."

@agent_tool(group="data", read_only=True)
def load_table(name: str) -> str:
    """Load a table by name and return it as CSV.

    Args:
        name: the table's name
    """
    return {"cities": "city,temp\\nParis,18\\nLima,22"}.get(name, "no such table")

print([g.name for g in session.toolkit.groups], session.toolkit.active_groups)'''),
    ("md", """\
The script first calls `load_table` while its group is off (the error tells the model what to
do), then activates the group and calls it again."""),
    ("code", '''\
model = ScriptedModel([
    [{"name": "load_table", "input": {"name": "cities"}}],
    [{"name": "reset_tools", "input": {"data": True}}],
    [{"name": "load_table", "input": {"name": "cities"}}],
    "Paris 18, Lima 22.",
])'''),
    ("code", "%%agent --model model\nWhat is in the cities table?"),
    ("code", '''\
await agent_run.wait_done(timeout=10)
show(agent_run)
print("active groups:", session.toolkit.active_groups)'''),
    ("md", "A skill:"),
    ("code", '''\
skill = pathlib.Path("skills/csv-summary")
skill.mkdir(parents=True)
(skill / "SKILL.md").write_text("""---
name: csv-summary
description: How to summarise a CSV file in three lines.
---
1. Count the rows. 2. Name the columns. 3. Give the extremes of each numeric column.
""")
%agent skill skills --scan
print(session.toolkit.system_prompt_block())'''),
    ("code", '''\
model = ScriptedModel([[{"name": "Skill", "input": {"skill": "csv-summary"}}],
                       "I will count rows, name columns and give the extremes."])'''),
    ("code", "%%agent --model model\nHow should you summarise a CSV?"),
    ("code", "await agent_run.wait_done(timeout=10)\nshow(agent_run)"),
    ("md", """\
An MCP server over stdio (a small script next to this notebook). The connection starts in the
background; `await session.ready()` waits for it. The server marks `capital` read-only
(`readOnlyHint`), so only `save_fact` asks."""),
    ("code", '''\
%agent mcp demo -- {sys.executable} {MCP_SERVER}
await session.ready()
print(sorted(t.name for t in session.toolkit.tools if t.name.startswith("mcp__")))'''),
    ("code", '''\
model = ScriptedModel([
    [{"name": "mcp__demo__capital", "input": {"country": "Kenya"}}],
    [{"name": "mcp__demo__save_fact", "input": {"fact": "Nairobi is the capital of Kenya"}}],
    "Saved.",
])'''),
    ("code", "%%agent --model model\nFind the capital of Kenya and remember it."),
    ("code", '''\
ask = await agent_run.question(1, timeout=10)
print(ask.tool, ask.input, [r.text for r in ask.suggestions])
ask.answer("allow_once")'''),
    ("code", "await agent_run.wait_done(timeout=10)\nshow(agent_run)"),
    ("md", "Next: **06** runs tool calls concurrently and shows how questions are de-duplicated."),
]

