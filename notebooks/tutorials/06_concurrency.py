"""Tutorial 06 · Concurrency and de-duplicated questions"""

from _tutorial import setup

CELLS = [
    ("md", """\
# 06 · Concurrency and de-duplicated questions

When the model asks for several tool calls at once, consecutive *concurrency-safe* calls run
together; the others run one by one, in order. If several calls of one batch would ask the same
question (they match the same suggested rule), you are asked **once**; the others wait for that
answer. A safety question is never merged with others."""),
    ("code", setup("06")),
    ("code", '''\
import asyncio
running = {"now": 0, "max": 0}

@agent_tool(concurrency_safe=True)
async def fetch(url: str) -> str:
    """Fetch a page (simulated).

    Args:
        url: the address
    """
    running["now"] += 1
    running["max"] = max(running["max"], running["now"])
    await asyncio.sleep(0.3)
    running["now"] -= 1
    return f"<html>{url}</html>"

urls = ["https://a.example", "https://b.example", "https://c.example"]
model = ScriptedModel([
    [{"name": "fetch", "input": {"url": u}} for u in urls]
    + [{"name": "Read", "input": {"file_path": "~/.ssh/id_rsa"}}],
    "Fetched three pages.",
])'''),
    ("code", "%%agent --model model\nFetch the three pages."),
    ("md", """\
Three `fetch` calls would each ask, with the same suggestion (`fetch`): one question. Reading
an SSH key is a safety question, asked on its own and never covered by a rule."""),
    ("code", '''\
first = await agent_run.question(1, timeout=10)
print(first.tool, first.input, "safety" if first.safety else "", [r.text for r in first.suggestions])
first.answer("always")'''),
    ("code", '''\
second = await agent_run.question(2, timeout=10)
print(second.tool, "safety" if second.safety else "", "-", second.decision.reason)
second.answer("deny")'''),
    ("code", '''\
await agent_run.wait_done(timeout=10)
for r in sorted(agent_run.tool_results, key=lambda r: (r.name, r.text)):  # finishing order varies
    print(f"{r.name:6} {r.state.value:7} {r.text.strip()[:60]}")
print("questions:", [(a.tool, a.choice) for a in agent_run.asks])
print("fetches running at the same time:", running["max"])'''),
    ("md", "Next: **07** runs the tools somewhere else: a separate kernel."),
]

