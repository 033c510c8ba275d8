"""An MCP server for the tests of how much of a message Tide reads and keeps, written without an
SDK (JSON-RPC on standard input and output, one message a line), so that it can write what an SDK
would first build whole in memory.

    python raw_server.py [big MEBIBYTES | deep DEPTH PADDING]

Its tools: `big` (a text result of MEBIBYTES MiB, 200 unless told, written 1 MiB at a time),
`big_image` (an image whose base64 data is as long) and `echo` (returns its text). With `deep`,
its tools/list answer also holds a tool whose schema's `examples` nest DEPTH arrays deep, and
whose description is PADDING bytes long.
"""
import json
import sys

mode = sys.argv[1:]
out = sys.stdout.buffer
MIB = 1 << 20
size = int(mode[1]) * MIB if mode and mode[0] == "big" else 200 * MIB

TOOLS = [
    {"name": "big", "description": "A large text.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "big_image", "description": "A large image.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "echo", "description": "Returns its text.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
]


def send(message):
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def tools():
    """The tools/list result, written by hand when it nests too deep for json.dumps."""
    if not mode or mode[0] != "deep":
        return json.dumps({"tools": TOOLS}).encode()
    depth, padding = int(mode[1]), int(mode[2])
    deep = (b'{"name": "deep", "description": "' + b"d" * padding + b'", "inputSchema": {"type": "object", "examples": '
            + b"[" * depth + b"]" * depth + b"}}")
    return b'{"tools": [' + b", ".join([json.dumps(tool).encode() for tool in TOOLS] + [deep]) + b"]}"


def stream(request_id, before, size, after):
    """An answer whose one long string, `size` bytes of "x", is written a piece at a time."""
    out.write(b'{"jsonrpc": "2.0", "id": ' + json.dumps(request_id).encode() + b', "result": ' + before)
    piece = b"x" * MIB
    for start in range(0, size, MIB):
        out.write(piece[:min(MIB, size - start)])
    out.write(after + b"}}\n")
    out.flush()


for line in sys.stdin.buffer:
    request = json.loads(line)
    if "id" not in request:
        continue
    method, request_id = request.get("method"), request["id"]
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": request_id, "result": {
            "protocolVersion": request["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "1"}}})
    elif method == "tools/list":
        out.write(b'{"jsonrpc": "2.0", "id": ' + json.dumps(request_id).encode() + b', "result": ' + tools() + b"}\n")
        out.flush()
    elif method == "tools/call" and request["params"]["name"] == "big":
        stream(request_id, b'{"content": [{"type": "text", "text": "', size, b'"}], "isError": false')
    elif method == "tools/call" and request["params"]["name"] == "big_image":
        stream(request_id, b'{"content": [{"type": "image", "mimeType": "image/png", "data": "', size, b'"}]')
    elif method == "tools/call" and request["params"]["name"] == "echo":
        text = request["params"]["arguments"]["text"]
        send({"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": text}], "isError": False}})
    else:
        send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "no such method"}})
