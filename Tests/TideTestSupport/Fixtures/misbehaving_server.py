"""An OpenAI-compatible chat server that misbehaves on request, for Tide's tests.

    python3 misbehaving_server.py PORT

It serves one model, `stub`, on 127.0.0.1:PORT. POST /v1/chat/completions streams a reply
whose behaviour the last message's text chooses:

    malformed  a good chunk ("Hello"), then an event that is not JSON
    error      a good chunk, then an OpenAI-style error event
    drop       a good chunk, then the connection closes without a finish
    stall      a good chunk, then silence
    silent     silence before any response head
    busy N     HTTP 429 with Retry-After: 1, the first N times this text is sent
    fail N     HTTP 503, the first N times
    cut N      a good chunk, then the connection closes without a finish, the first N times
    refuse N   the connection closes before any response head, the first N times
    wrong      HTTP 400: a request the server will never take
    gate PATH  "Hello there.", once a file exists at PATH (a test opens the gate; 600 s at most)
    anything else (and the above once their N are spent): "Hello there." with a finish reason
    and [DONE]

Every response closes its connection. GET /v1/models lists the model (and tells a test the
server is up).
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def chunk(content=None, finish=None):
    delta = {} if content is None else {"content": content}
    body = {"id": "stub-1", "object": "chat.completion.chunk", "created": 0, "model": "stub",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return "data: " + json.dumps(body) + "\n\n"


# How many times each text was sent, for the behaviours that pass after N times.
SEEN = {}
SEEN_LOCK = threading.Lock()


def failing(behaviour):
    """The behaviour's name while it is still to fail (`busy 2` the first two times), else None."""
    parts = behaviour.split()
    if len(parts) != 2 or parts[0] not in ("busy", "fail", "cut", "refuse") or not parts[1].isdigit():
        return None
    with SEEN_LOCK:
        SEEN[behaviour] = SEEN.get(behaviour, 0) + 1
        return parts[0] if SEEN[behaviour] <= int(parts[1]) else None


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
        text = request["messages"][-1]["content"].strip()
        behaviour = text.lower()
        if behaviour.startswith("gate "):
            waited = 0.0
            while not os.path.exists(text[5:]) and waited < 600:
                time.sleep(0.05)
                waited += 0.05
        if behaviour == "silent":
            time.sleep(60)
            return
        failure = failing(behaviour)
        if failure == "refuse":
            self.close_connection = True
            return
        if failure in ("busy", "fail") or behaviour == "wrong":
            status = {"busy": 429, "fail": 503}.get(failure, 400)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if failure == "busy":
                self.send_header("Retry-After", "1")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            self.stream(json.dumps({"error": {"message": "try again later" if failure else "that is not a request I take",
                                              "type": "server_error" if failure else "invalid_request_error"}}))
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
        elif behaviour != "drop" and failure != "cut":
            self.stream(chunk(" there."), chunk(finish="stop"), "data: [DONE]\n\n")


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    server.serve_forever()
