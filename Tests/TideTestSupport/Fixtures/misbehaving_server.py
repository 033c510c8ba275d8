"""An OpenAI-compatible chat server that misbehaves on request, for Tide's tests.

    python3 misbehaving_server.py PORT

It serves one model, `stub`, on 127.0.0.1:PORT. POST /v1/chat/completions streams a reply
whose behaviour the last message's text chooses:

    malformed  a good chunk ("Hello"), then an event that is not JSON
    error      a good chunk, then an OpenAI-style error event
    drop       a good chunk, then the connection closes without a finish
    stall      a good chunk, then silence
    silent     silence before any response head
    anything else: "Hello there." with a finish reason and [DONE]

Every response closes its connection. GET /v1/models lists the model (and tells a test the
server is up).
"""
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def chunk(content=None, finish=None):
    delta = {} if content is None else {"content": content}
    body = {"id": "stub-1", "object": "chat.completion.chunk", "created": 0, "model": "stub",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return "data: " + json.dumps(body) + "\n\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        sys.stderr.write("%s\n" % (format % args))

    def send_head(self, status, content_type):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def stream(self, *events):
        for event in events:
            self.wfile.write(event.encode())
            self.wfile.flush()

    def do_GET(self):
        if self.path != "/v1/models":
            self.send_head(404, "text/plain")
            self.stream("no such path")
            return
        self.send_head(200, "application/json")
        self.stream(json.dumps({"object": "list", "data": [
            {"id": "stub", "object": "model", "created": 0, "owned_by": "tide-tests"}]}))

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        request = json.loads(self.rfile.read(length))
        behaviour = request["messages"][-1]["content"].strip().lower()
        if behaviour == "silent":
            time.sleep(60)
            return
        self.send_head(200, "text/event-stream")
        self.stream(chunk(""), chunk("Hello"))
        if behaviour == "malformed":
            self.stream("data: {this is not json}\n\n")
        elif behaviour == "error":
            self.stream("data: " + json.dumps({"error": {
                "message": "the model ran out of memory", "type": "server_error"}}) + "\n\n")
        elif behaviour == "stall":
            time.sleep(60)
        elif behaviour != "drop":
            self.stream(chunk(" there."), chunk(finish="stop"), "data: [DONE]\n\n")


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    server.serve_forever()
