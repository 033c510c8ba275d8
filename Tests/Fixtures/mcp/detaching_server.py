"""An MCP server for the tests of how Tide ends its servers, written with the official Python SDK:
one that leaves processes behind, as servers that start helpers do, and is hard to end.

    python detaching_server.py MARKER [polite]

At start it forks a helper that stays in its session (its command line holds child-MARKER), and a
daemon that detaches as daemons do: forked twice, in a session of its own (detached-MARKER). Both
have their standard input, output and error on /dev/null, and both ignore SIGTERM and SIGHUP. So
does the server, which also outlives the end of its input (only SIGKILL ends any of them), unless
`polite`: then it ends with its input. Once the daemon has detached, the server makes the file
detaching-started-MARKER in the temporary folder.
Its tools: `hold` (makes the file detaching-hold-MARKER there, then never answers) and `echo`
(returns its text).
"""
import os
import signal
import sys
import tempfile
import time

marker = sys.argv[1]
polite = sys.argv[2:] == ["polite"]
# What the helpers run: nothing but waiting, deaf to SIGTERM and SIGHUP; the tag is only for ps.
WAIT = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nsignal.signal(signal.SIGHUP, signal.SIG_IGN)\n" \
       "while True: time.sleep(60)"


def run_helper(tag):
    """Runs WAIT in this process, its standard input, output and error on /dev/null."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.execv(sys.executable, [sys.executable, "-c", WAIT, tag])


if os.fork() == 0:
    run_helper("child-" + marker)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        run_helper("detached-" + marker)
    os._exit(0)
os.wait()  # the first fork of the daemon, which exits at once, leaving the daemon an orphan
# The tests wait for this file to know the daemon has detached.
open(os.path.join(tempfile.gettempdir(), "detaching-started-" + marker), "w").close()
if not polite:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)

from mcp.server.mcpserver import MCPServer

server = MCPServer("detaching")


@server.tool()
def hold() -> str:
    """Never answers."""
    # The tests wait for this file to know the call has begun.
    open(os.path.join(tempfile.gettempdir(), "detaching-hold-" + marker), "w").close()
    while True:
        time.sleep(60)


@server.tool()
def echo(text: str) -> str:
    """Returns its text."""
    return text


if __name__ == "__main__":
    server.run()
    while not polite:
        time.sleep(60)
