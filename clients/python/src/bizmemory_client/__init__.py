"""Python client of BizMemory, long-term memory for AI agents (API v1).

``BizMemory`` is the HTTP client (typed methods for ingest, context, search, get and the item
list), ``MemoryTools`` hands the read tools to a model and dispatches its tool calls, and
``errors`` holds the exceptions (each API error carries the status and the field the server
named). See clients/python/README.md for a complete agent loop.
"""

from ._version import __version__
from .client import BizMemory
from .errors import (
    ApiError,
    BadRequest,
    BizMemoryError,
    Conflict,
    ConnectionFailed,
    NotFound,
    PermissionDenied,
    RateLimited,
    ServerError,
    ServiceUnavailable,
)
from .models import (
    Context,
    IngestResult,
    ItemsPage,
    MemoryDocument,
    MemoryItem,
    Message,
    MessageResult,
    SearchHit,
    SearchResult,
    SessionEnd,
)
from .tools import READ_TOOLS, MemoryTools, ToolCallError

__all__ = [
    "__version__", "BizMemory", "MemoryTools", "READ_TOOLS", "ToolCallError",
    "ApiError", "BadRequest", "BizMemoryError", "Conflict", "ConnectionFailed", "NotFound", "PermissionDenied",
    "RateLimited", "ServerError", "ServiceUnavailable",
    "Context", "IngestResult", "ItemsPage", "MemoryDocument", "MemoryItem", "Message", "MessageResult",
    "SearchHit", "SearchResult", "SessionEnd",
]
