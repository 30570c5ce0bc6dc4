"""Loopback stand-ins for what the stack talks to: an OpenAI-compatible upstream and a TCP proxy.

* :class:`FakeUpstream` answers ``POST …/chat/completions`` and ``POST …/embeddings`` in one of
  three modes: ``hang`` (hold the request until released — the caller is then *in the middle*
  of its work, observably), ``garbage`` (200 with a body that is not JSON) or ``ok``
  (well-formed replies: the chat reply keeps nothing, embeddings are deterministic unit vectors).
* :class:`TcpProxy` forwards a loopback port to the database server; ``cut()`` drops every
  connection and refuses new ones (an outage, without stopping the shared server), ``restore()``
  ends it.
"""

from __future__ import annotations

import hashlib
import json
import socket
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


class TcpProxy:
    """Forward ``127.0.0.1:<port>`` to ``(host, port)``; ``cut()`` / ``restore()`` simulate an outage."""

    def __init__(self, host: str, port: int):
        self.target = (host, port)
        self.down = False
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self.port = self._listener.getsockname()[1]
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self.down:
                client.close()  # the client sees the server drop the connection at once
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        """Drop every open connection and refuse new ones until :meth:`restore`."""
        self.down = True
        with self._lock:
            conns, self._conns = self._conns, []
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def restore(self) -> None:
        self.down = False

    def close(self) -> None:
        self._closed = True
        self.cut()
        self._listener.close()
