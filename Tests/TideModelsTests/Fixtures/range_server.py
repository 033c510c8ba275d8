"""A small HTTP file server for Tide's download tests, bound to 127.0.0.1.

GET /NAME                   serves DIR/NAME, honouring "Range: bytes=N-" with 206 Partial Content.
GET /drop-after/K/NAME      announces the whole length but closes the connection after K bytes.
Anything else is a 404.  Each request is logged to DIR/requests.log as "PATH RANGE".
The chosen port is printed on the first line of standard output. The server exits when its
standard input closes, so it never outlives the test that started it.

Usage: python3 range_server.py DIR
"""
import http.server
import os
import sys
import threading

ROOT = sys.argv[1]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        with open(os.path.join(ROOT, "requests.log"), "a") as log:
            log.write(f"{self.path} {self.headers.get('Range', '-')}\n")
        parts = self.path.strip("/").split("/")
        drop_after = None
        if len(parts) == 3 and parts[0] == "drop-after":
            drop_after, parts = int(parts[1]), parts[2:]
        path = os.path.join(ROOT, parts[-1])
        if len(parts) != 1 or not os.path.isfile(path) or parts[0] == "requests.log":
            body = b'{"error": "no such file"}'
            self.send_response(404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        data = open(path, "rb").read()
        start = 0
        range_header = self.headers.get("Range")
        if range_header and range_header.startswith("bytes="):
            start = int(range_header[len("bytes="):].split("-")[0])
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        body = data[start:]
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if drop_after is not None:
            self.wfile.write(body[:drop_after])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def exit_when_parent_goes():
    sys.stdin.read()
    os._exit(0)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
threading.Thread(target=exit_when_parent_goes, daemon=True).start()
server.serve_forever()
