"""A loopback stand-in for what the stack talks to: an OpenAI-compatible upstream.

* :class:`FakeUpstream` answers ``POST …/chat/completions`` and ``POST …/embeddings`` in one of
  three modes: ``hang`` (hold the request until released — the caller is then *in the middle*
  of its work, observably), ``garbage`` (200 with a body that is not JSON) or ``ok``
  (well-formed replies: the chat reply keeps nothing, embeddings are deterministic unit vectors).

The TCP proxy in front of the database (an outage by ``cut()``) is ``tests/tcp_proxy.py``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeUpstream:
    """OpenAI-compatible fake on ``base_url`` (``http://127.0.0.1:<port>/v1``).

    ``arrived`` is set when a request comes in (``paths`` lists them); ``mode`` may be changed
    while running. ``close()`` releases hanging requests and stops the server."""

    def __init__(self, mode: str = "ok", dim: int = 16):
        self.mode = mode
        self.dim = dim
        self.arrived = threading.Event()
        self.release = threading.Event()
        self.paths: list[str] = []
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                upstream.paths.append(self.path)
                upstream.arrived.set()
                if upstream.mode == "hang":
                    upstream.release.wait(120)
                    return  # the client is gone by now
                if upstream.mode == "garbage":
                    payload = b"<html>definitely not json"
                elif self.path.endswith("/embeddings"):
                    texts = json.loads(body)["input"]
                    payload = json.dumps(
                        {"data": [{"index": i, "embedding": upstream.vector(t)} for i, t in enumerate(texts)]}
                    ).encode()
                else:
                    payload = json.dumps({"choices": [{"message": {"content": json.dumps({"decisions": []})}}]}).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def vector(self, text: str) -> list[float]:
        digest = hashlib.sha256(text.encode()).digest()
        v = [b - 127.5 for b in digest[: self.dim]]
        n = sum(x * x for x in v) ** 0.5 or 1.0
        return [x / n for x in v]

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
