"""The MCP server's stdio transport: every call received is answered before the server exits.

The SDK's stdio loop (``mcp`` 2.3, ``JSONRPCDispatcher.run``) cancels the handlers still running
when stdin reaches end of file and answers each "Connection closed". A client that writes its
calls and closes stdin at once (a script, a one-shot pipe, an agent runtime shutting down) lost
them (issue 17). :class:`DrainingMCPServer` puts a relay between the SDK's stdio streams and its
server loop: it notes the id of every request it passes in and every answer the server writes
back, and holds the end of input back from the loop until each request received is answered
(or :data:`DRAIN_TIMEOUT_SECONDS` has passed). Then the loop sees end of file, finds nothing in
flight, and the process exits. A request the client cancels (``notifications/cancelled``) is
never answered, by the protocol, so it is not waited for.
"""

from __future__ import annotations

from contextlib import asynccontextmanager

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

# How long calls still running at end of input may take to finish. Past it the SDK answers the
# rest "Connection closed" as before: a call stuck on a dead database must not keep the process
# alive after its client has gone (the database's own statement timeouts normally end it first).
DRAIN_TIMEOUT_SECONDS = 60.0


class _Unanswered:
    """Ids of the requests passed to the server and not yet answered."""

    def __init__(self) -> None:
        self.ids: set = set()
        self.changed = anyio.Event()

    def note_in(self, item) -> None:
        message = item.message if isinstance(item, SessionMessage) else None
        if isinstance(message, JSONRPCRequest):
            self.ids.add(message.id)
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            self._settle((message.params or {}).get("requestId"))

    def note_out(self, item: SessionMessage) -> None:
        if isinstance(item.message, (JSONRPCResponse, JSONRPCError)):
            self._settle(item.message.id)

    def _settle(self, request_id) -> None:
        for same in (request_id, str(request_id)):
            self.ids.discard(same)
        self.changed.set()
        self.changed = anyio.Event()

    async def wait_empty(self) -> None:
        while self.ids:
            await self.changed.wait()


@asynccontextmanager
async def answered_before_eof(read_stream, write_stream, *, timeout: float = DRAIN_TIMEOUT_SECONDS):
    """Wrap a transport's stream pair so the server loop sees end of input only once every request
    read from ``read_stream`` has its answer written to ``write_stream`` (at most ``timeout``
    seconds after the transport's own end of input).

    Inputs: the ``(read_stream, write_stream)`` a transport such as ``mcp.server.stdio.stdio_server``
    yields. Yields the ``(read_stream, write_stream)`` pair to hand to the server loop (anyio
    memory streams, which satisfy the SDK's stream protocols). Closes both transport streams when
    the loop is done with them.
    """
    unanswered = _Unanswered()
    to_loop, loop_reads = anyio.create_memory_object_stream(0)
    loop_writes, from_loop = anyio.create_memory_object_stream(0)

    async def inbound() -> None:
        async with to_loop:
            async with read_stream:
                async for item in read_stream:
                    unanswered.note_in(item)
                    await to_loop.send(item)
            with anyio.move_on_after(timeout):
                await unanswered.wait_empty()

    async def outbound() -> None:
        async with write_stream, from_loop:
            async for item in from_loop:
                await write_stream.send(item)
                unanswered.note_out(item)

    async with anyio.create_task_group() as tg:
        tg.start_soon(inbound)
        tg.start_soon(outbound)
        yield loop_reads, loop_writes


class DrainingMCPServer(MCPServer):
    """``MCPServer`` whose stdio transport answers every request received before stdin closed
    (:func:`answered_before_eof`), then returns. Other transports are the SDK's own."""

    async def run_stdio_async(self) -> None:
        """Serve over stdin/stdout until stdin closes and every call received is answered."""
        lowlevel = self._lowlevel_server  # as MCPServer.run_stdio_async itself drives it
        async with stdio_server() as (read_stream, write_stream):
            async with answered_before_eof(read_stream, write_stream) as (reads, writes):
                await lowlevel.run(reads, writes, lowlevel.create_initialization_options())
