"""RunCode's run-time guards for code that runs without a question, in a real ipykernel: an
allocation the analysis could not size (a shape from a variable) past the memory ceiling is a
``MemoryError`` the model reads, not a kernel the out-of-memory killer takes down; a long
loop is interrupted at the timeout; the ceiling is lifted after the run, and code the user
approved runs without one (``builtin/notebook/guards.py``).

The allocations are ``np.zeros``: the memory is reserved, never touched, so without the
ceiling the test costs nothing either (0.9 of the available memory, under the ceiling of
half of it)."""

from __future__ import annotations

import json
import sys

import pytest
from test_notebook_kernel import SETUP, KernelDriver, isolated_env, run_report

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="the memory ceiling is Linux's RLIMIT_AS")]

GUARDS_SETUP = '''
import resource
import numpy as np
available = next(int(line.split()[1]) * 1024 for line in open("/proc/meminfo")
                 if line.startswith("MemAvailable:"))
shape = (int(available * 0.9) // 8,)
n = 10 ** 5
limit_before = resource.getrlimit(resource.RLIMIT_AS)
'''

# (code, timeout, asked in default mode, expected state, words the result contains)
CASES = [
    ("np.zeros(shape).shape", None, False, "error", ["MemoryError", "memory ceiling"]),
    ("print(np.zeros((shape[0], 8), dtype=bool).nbytes)", None, False, "error",
     ["MemoryError", "memory ceiling"]),
    ("sum(1 for x in range(n) for y in range(n))", 1, False, "error", ["Timed out"]),
    ("df.temp.mean()", None, False, "success", ["20.0"]),
    # approved code (an assignment is asked): the user chose to run it, no ceiling
    ("zeros = np.zeros(shape)\nzeros.shape", None, True, "success", [")"]),
]


@pytest.fixture(scope="module")
def guarded_kernel(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("guards")
    project = root / "project"
    project.mkdir()
    driver = KernelDriver(project, isolated_env(root))
    try:
        driver.run(SETUP)
        driver.run(GUARDS_SETUP)
        yield driver
    finally:
        driver.stop()


def test_read_only_code_runs_under_the_guards(guarded_kernel: KernelDriver):
    kernel = guarded_kernel
    calls = [[{"name": "RunCode", "input": dict(code=code, **({"timeout": t} if t else {}))}]
             for code, t, _asked, _state, _words in CASES]
    kernel.run(f"model = ScriptedModel(json.loads({json.dumps(json.dumps(calls + ['done']))}))\n"
               "session.toolkit.set_active_groups({'notebook': True})")
    kernel.run("%%agent --model model --mode default\nlook")
    report = run_report(kernel, "print(json.dumps(await drive(agent_run)))")
    results = report["results"]
    assert len(results) == len(CASES), report
    assert report["asked"] == ["RunCode"] * sum(1 for case in CASES if case[2])
    for (code, _t, _asked, state, words), (_name, got_state, text) in zip(CASES, results):
        assert got_state == state, (code, text)
        for word in words:
            assert word in text, (code, word, text)
    # the ceiling was for the runs only: the user's own cells allocate as before
    out = kernel.run("print(resource.getrlimit(resource.RLIMIT_AS) == limit_before, "
                     "np.zeros(shape).shape == shape)")
    assert out.strip() == "True True"



def test_the_ceiling_is_put_back_even_when_the_code_fails():
    import resource

    from jupyter_agenttools.builtin.notebook.guards import MIN_ALLOWANCE, memory_ceiling

    before = resource.getrlimit(resource.RLIMIT_AS)
    with pytest.raises(MemoryError):
        with memory_ceiling() as allowance:
            assert allowance is not None and allowance >= MIN_ALLOWANCE
            assert resource.getrlimit(resource.RLIMIT_AS)[0] != before[0]
            raise MemoryError
    assert resource.getrlimit(resource.RLIMIT_AS) == before


def test_a_tighter_limit_of_the_user_is_left_alone():
    import resource

    from jupyter_agenttools.builtin.notebook.guards import _address_space, memory_ceiling

    before = resource.getrlimit(resource.RLIMIT_AS)
    used = _address_space()
    assert used is not None
    tight = used + 64 * 2 ** 20  # under any ceiling (the allowance is at least 256 MiB)
    resource.setrlimit(resource.RLIMIT_AS, (tight, before[1]))
    try:
        with memory_ceiling() as allowance:
            assert allowance is None
            assert resource.getrlimit(resource.RLIMIT_AS) == (tight, before[1])
        assert resource.getrlimit(resource.RLIMIT_AS) == (tight, before[1])
    finally:
        resource.setrlimit(resource.RLIMIT_AS, before)


def _tree(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


G = 2 ** 30


@pytest.mark.parametrize("own,files,room", [
    # cgroup v2, a pod's limit: 4 GiB, 1 GiB used
    ("0::/kubepods/pod1\n", {"cgroup.controllers": "memory", "kubepods/pod1/memory.max":
                             str(4 * G), "kubepods/pod1/memory.current": str(G)}, 3 * G),
    # v2 without a limit ("max"), but the parent has one
    ("0::/a/b\n", {"cgroup.controllers": "memory", "a/b/memory.max": "max",
                   "a/b/memory.current": str(G), "a/memory.max": str(2 * G),
                   "a/memory.current": str(G // 2)}, 2 * G - G // 2),
    # v1 (as on this machine), the limit of the process's own group
    ("4:memory:/jobs/42\n1:cpu:/\n", {"memory/jobs/42/memory.limit_in_bytes": str(8 * G),
                                      "memory/jobs/42/memory.usage_in_bytes": str(5 * G)},
     3 * G),
    # v1 "unlimited" (2**63 rounded down to a page)
    ("4:memory:/\n", {"memory/memory.limit_in_bytes": "9223372036854771712",
                      "memory/memory.usage_in_bytes": str(G)}, None),
    # a cgroup namespace: the path is not under the mount; the mount is the group
    ("0::/\n", {"cgroup.controllers": "memory", "memory.max": str(2 * G),
                "memory.current": str(G)}, G),
    ("0::/elsewhere\n", {"cgroup.controllers": "memory", "memory.max": str(2 * G),
                         "memory.current": str(G)}, G),
    # no cgroup information at all
    ("", {}, None),
])
def test_a_container_limit_is_the_memory_available(tmp_path, own, files, room):
    from jupyter_agenttools.builtin.notebook.guards import cgroup_room

    _tree(tmp_path / "fs", files)
    (tmp_path / "own").write_text(own)
    (tmp_path / "fs").mkdir(exist_ok=True)
    assert cgroup_room(str(tmp_path / "fs"), str(tmp_path / "own")) == room
