"""A filesystem-like MCP server for the tests of the tool-allow policy, written with the official
Python SDK. It is as lenient about paths as servers in the wild are, so that every way of
spelling a path that leads out of a folder can be tried against a real server:

    python files_server.py ROOT

Its tools: `read_file` (the text of a file) and `write_file` (writes a text to a file, creating
it, through a symbolic link too). A path is taken from `path` (a string, or an object holding
it under `value`) or, when given, from `opts.p`; it is then trimmed, read as a file: URI's path,
%-decoded until nothing changes, put in Unicode's NFKC form (so `‥` reads as `..` and `／` as
`/`), its backslashes read as separators and a leading ~ expanded; a relative path is taken
inside ROOT. The system then opens it: symbolic links are followed, and `..` after a link goes
up from where the link leads.
"""
import os
import sys
import unicodedata
from typing import Any, Optional
from urllib.parse import unquote, urlparse

from mcp.server.mcpserver import MCPServer

root = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
server = MCPServer("files")


def where(path: Any, opts: Optional[dict]) -> str:
    """The path a call names, read as leniently as servers read them."""
    if isinstance(opts, dict) and isinstance(opts.get("p"), str):
        path = opts["p"]
    if isinstance(path, dict):
        path = path.get("value", "")
    text = str(path).strip()
    if text.lower().startswith("file:"):
        text = urlparse(text).path
    while unquote(text) != text:
        text = unquote(text)
    text = unicodedata.normalize("NFKC", text).replace("\\", "/")
    text = os.path.expanduser(text)
    return text if os.path.isabs(text) else os.path.join(root, text)


@server.tool()
def read_file(path: Any = None, opts: Optional[dict] = None) -> str:
    """Reads a text file."""
    with open(where(path, opts), encoding="utf-8") as file:
        return file.read()


@server.tool()
def write_file(path: Any = None, content: str = "", opts: Optional[dict] = None) -> str:
    """Writes a text file."""
    with open(where(path, opts), "w", encoding="utf-8") as file:
        file.write(content)
    return "written"


if __name__ == "__main__":
    server.run()
