"""``python manage.py mcp_server --user USER --agent AGENT --key KEY`` — the read-only MCP server over stdio.

Serves exactly the three read-only agent tools, ``memory_search``, ``memory_get`` and
``memory_items``, for one user as one calling agent (``profiles.mcp_server.build_server``); every
call received before stdin closes is answered before the command returns. Like the HTTP API it
needs a read-scope API key: ``--key``, or the ``BIZMEMORY_API_KEY`` environment variable
(better: a command line is visible to other local users), allowing the agent; every tool call
checks it again. ``--user`` is a platform user id, in the platform's own namespace
(``profiles.models.PlatformIdentity``): one no platform user has yet is served as a user with no
memory (as the HTTP API answers it), and a staff login of the same name is another account whose
memory is never read. Exit status 2 with a message for a missing or invalid key or an agent the
key may not act for.
"""

import os

from django.core.management.base import BaseCommand, CommandError

from profiles.mcp_server import build_server
from profiles.permissions import api_key_get, read_key_refusal


class Command(BaseCommand):
    help = "Run the read-only BizMemory MCP server (memory_search, memory_get, memory_items) on stdin/stdout."

    def add_arguments(self, parser):
        parser.add_argument("--user", required=True, help="platform user id whose memory the tools read")
        parser.add_argument("--agent", required=True, help="calling agent or expert slug")
        parser.add_argument("--key", default=os.environ.get("BIZMEMORY_API_KEY", ""),
                            help="read-scope API key (default: $BIZMEMORY_API_KEY; required)")

    def handle(self, *args, **opts):
        if not opts["key"]:
            raise CommandError("--key: a read-scope API key is required (or set BIZMEMORY_API_KEY)", returncode=2)
        refusal = read_key_refusal(api_key_get(opts["key"]), opts["agent"])
        if refusal:
            raise CommandError(f"--{refusal[0]}: {refusal[1]}", returncode=2)
        # --user is a platform id: its own namespace (profiles.models.PlatformIdentity), so a staff
        # login of the same name is another account, never read here.
        build_server(username=opts["user"], agent_slug=opts["agent"], api_key=opts["key"]).run("stdio")
