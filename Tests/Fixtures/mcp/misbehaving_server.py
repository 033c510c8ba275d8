"""An MCP server for the tests of `--mcp`, written with the official Python SDK, that fails on request.

    python misbehaving_server.py [MODE [MARKER]]

Its tools: `echo` (returns its text), `add` (a + b), `big` (a result of the size asked for, in
MiB), `slow` (answers after the seconds asked for, having made the file
misbehaving-slow-MARKER in the temporary folder), `crash` (the server exits mid-call),
`garbage` (the server writes a line that is not JSON), `email` (a text with e-mail addresses),
`error` (an error result). MODE changes how the server behaves as a whole:
  fail-at-start     exits with status 3 before it reads anything;
  silent            reads its input and never answers;
  stubborn          ignores SIGTERM and the end of its input, so only SIGKILL ends it.
"""
import asyncio
import os
import signal
import sys
import tempfile
import time

mode = sys.argv[1] if len(sys.argv) > 1 else ""
if mode == "fail-at-start":
    print("misbehaving server: failing at start, as asked", file=sys.stderr)
    sys.exit(3)
if mode == "silent":
    for _ in sys.stdin:
        pass
    time.sleep(3600)
    sys.exit(0)
if mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("misbehaving")
# The pipe the protocol runs on, before the SDK moves it.
wire = (os.fstat(1).st_dev, os.fstat(1).st_ino)


@server.tool()
def echo(text: str) -> str:
    """Returns its text."""
    return text


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@server.tool()
def big(mebibytes: int) -> str:
    """Returns a text of the size asked for."""
    return "x" * (mebibytes << 20)


@server.tool()
async def slow(seconds: float) -> str:
    """Answers after a while."""
    # The tests wait for this file to know the call has begun.
    if len(sys.argv) > 2:
        open(os.path.join(tempfile.gettempdir(), "misbehaving-slow-" + sys.argv[2]), "w").close()
    await asyncio.sleep(seconds)
    return "done"


@server.tool()
def crash() -> str:
    """Ends the server in the middle of the call."""
    os._exit(7)


@server.tool()
def garbage() -> str:
    """Writes a line that is not JSON where the answer should be."""
    # The SDK serves the wire from a copy of the first standard output, and points fd 1 elsewhere.
    for fd in range(3, 256):
        try:
            status = os.fstat(fd)
        except OSError:
            continue
        if (status.st_dev, status.st_ino) == wire:
            os.write(fd, b"this is not JSON\n")
    time.sleep(3600)
    return "never"


@server.tool()
def email() -> str:
    """A text that holds e-mail addresses."""
    return "Write to ada@example.org or to grace.hopper@navy.example.mil for the report."


@server.tool()
def error() -> str:
    """Fails."""
    raise ToolError("the tool failed, as asked")


if __name__ == "__main__":
    server.run()
    if mode == "stubborn":
        while True:
            time.sleep(60)
