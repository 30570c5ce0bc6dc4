"""``python manage.py mcp_server --user USER --agent AGENT`` — the read-only MCP server over stdio.

Serves exactly the two agent tools, ``memory_search`` and ``memory_get``, for one
user as one calling agent (``profiles.mcp_server.build_server``). ``--key`` (or the
``BIZMEMORY_API_KEY`` environment variable) may name a read-scope API key; the key
must then allow the agent. Exit status 2 with a message for an unknown user, a
missing/invalid key or an agent the key may not act for.
"""

import os

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from profiles.mcp_server import build_server
from profiles.models import APIKeyScope, PlatformAPIKey


class Command(BaseCommand):
    help = "Run the read-only BizMemory MCP server (memory_search, memory_get) on stdin/stdout."

    def add_arguments(self, parser):
        parser.add_argument("--user", required=True, help="platform user id whose memory the tools read")
        parser.add_argument("--agent", required=True, help="calling agent or expert slug")
        parser.add_argument("--key", default=os.environ.get("BIZMEMORY_API_KEY", ""),
                            help="read-scope API key (default: $BIZMEMORY_API_KEY; optional)")

    def handle(self, *args, **opts):
        user = get_user_model().objects.filter(username=opts["user"]).first()
        if user is None:
            raise CommandError(f"--user: no user {opts['user']!r}", returncode=2)
        if opts["key"]:
            try:
                key = PlatformAPIKey.objects.get_from_key(opts["key"])
            except PlatformAPIKey.DoesNotExist as exc:
                raise CommandError("--key: not a valid API key", returncode=2) from exc
            if key.scope != APIKeyScope.READ or key.has_expired:
                raise CommandError("--key: a valid read-scope key is required", returncode=2)
            if not key.allows_agent(opts["agent"]):
                raise CommandError(f"--agent: this key may not act for agent {opts['agent']!r}", returncode=2)
        build_server(user=user, agent_slug=opts["agent"]).run("stdio")
