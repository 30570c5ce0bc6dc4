"""A loopback TCP proxy in front of the database server, for fault tests.

``TcpProxy(host, port)`` listens on ``127.0.0.1:<proxy.port>`` and forwards every connection to
``(host, port)``, one thread per direction. Two faults:

* ``cut()`` / ``restore()``: an outage. Every open connection is shut down and new ones are
  refused (closed at once) until ``restore()``; clients see the peer go away.
* ``freeze()`` / ``thaw()``: a half-open path — a middlebox that stops forwarding while both of
  its sockets stay open. Nothing more is read from either side (bytes already read are held, not
  forwarded) and no socket is closed, so each kernel keeps acknowledging what arrives until its
  receive buffer is full, and answers TCP keepalive probes: neither end sees an error, the
  traffic just stops. New connections are accepted, connected upstream and frozen too.
  ``thaw()`` forwards what was held and resumes.

A frozen proxy's receive window closes after some 100 KB (a socket that is not read does not
grow its buffer), so a client writing more than its own send buffer holds blocks: what a write
timeout is tested with.
"""

from __future__ import annotations

import socket
import threading


class TcpProxy:
    """Forward ``127.0.0.1:<port>`` to ``(host, port)``; see the module docstring for the faults."""

    def __init__(self, host: str, port: int):
        self.target = (host, port)
        self.down = False
        self._flowing = threading.Event()
        self._flowing.set()
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

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                self._flowing.wait()
                data = src.recv(65536)
                # Read just before a freeze: hold it — bytes or end of stream — so nothing at all
                # crosses a frozen proxy, not even one side closing.
                self._flowing.wait()
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

    def freeze(self) -> None:
        """Stop forwarding in both directions, every socket left open (see the module docstring)."""
        self._flowing.clear()

    def thaw(self) -> None:
        """Forward again, starting with what was held."""
        self._flowing.set()

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
        """Cut every connection (a frozen one too) and stop listening."""
        self._closed = True
        self.cut()
        self._flowing.set()  # let the pipe threads see their sockets closed and end
        self._listener.close()

    def __enter__(self) -> TcpProxy:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
