"""The test world of the MCP tests: a copy of the demo project, the fake `lake` and `lean`
on PATH (fake-toolchain/README.md), and the real `leanscope mcp` started over stdio by the
official Python client."""

import os
import shutil
import subprocess
import tempfile
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parents[2]


def _binary(name):
    env = os.environ.get("LEANSCOPE_BIN" if name == "leanscope" else "LEANSCOPE_FAKE_LEAN")
    if env:
        return Path(env)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    path = target / "debug" / name
    if not path.exists():
        raise RuntimeError(f"no {path}: cargo build -p leanscope -p fake-toolchain")
    return path


class World:
    """A temporary folder with demo/ (the project) and bin/ (the fake toolchain)."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="leanscope-mcp-"))
        self.project = self.dir / "demo"
        shutil.copytree(REPO / "fixtures/projects/demo", self.project)
        self.bin = self.dir / "bin"
        self.bin.mkdir()
        for name in ("lake", "lean"):
            (self.bin / name).symlink_to(_binary("fake-lean"))
        # A revision run's sandbox clears the environment: the fake finds its toolchains
        # beside its bin/ (fake-toolchain/README.md).
        (self.dir / "fixtures/lean-output").mkdir(parents=True)
        shutil.copy(REPO / "fixtures/lean-output/toolchains.json", self.dir / "fixtures/lean-output")
        self.pids = self.dir / "pids"
        self.env = {
            "PATH": f"{self.bin}:/usr/bin:/bin",
            "HOME": str(self.dir),
            "LEANSCOPE_FAKE_FIXTURES": str(REPO / "fixtures/lean-output"),
            "LEANSCOPE_FAKE_DELAY_SCALE": "0",
            "LEANSCOPE_FAKE_PIDFILE": str(self.pids),
        }

    def write(self, rel, text):
        path = self.project / rel
        path.write_text(text)
        return path

    def fake_pids(self):
        """The pids of every fake `lake` and `lean` started so far."""
        if not self.pids.exists():
            return []
        return [int(line.split()[1]) for line in self.pids.read_text().splitlines() if line.strip()]

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    @asynccontextmanager
    async def session(self, *extra):
        """A client session with `leanscope mcp EXTRA…` run in the project folder."""
        params = StdioServerParameters(
            command=str(_binary("leanscope")),
            args=["mcp", *extra],
            env=self.env,
            cwd=str(self.project),
        )
        with open(self.dir / "server.log", "a") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    yield session


def alive(pid):
    """Whether process `pid` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"


def server_pid():
    """The pid of the `leanscope mcp` this test process started."""
    me = os.getpid()
    out = subprocess.run(["ps", "-o", "pid=,args=", "--ppid", str(me)], capture_output=True, text=True)
    for line in out.stdout.splitlines():
        pid, _, args = line.strip().partition(" ")
        if args.endswith(" mcp"):
            return int(pid)
    raise RuntimeError(f"no leanscope mcp child of {me}: {out.stdout!r}")


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")
