"""System checks of the profiles app: its settings (context budget, embedder, search and API rate
limits; limits and check ids from ``bizmemory/conf.py``) and its identifier columns on
MySQL/MariaDB (user ids and agent slugs byte-exact, bizmemory.E040)."""

from django.conf import settings
from django.core import checks

from bizmemory.collation import ExactColumn, collation_problems
from bizmemory.conf import check_message, checks_apply, limit_errors


@checks.register()
def check_profiles_settings(app_configs=None, **kwargs):
    """Profiles settings outside their limits (bizmemory.E002, E030, E032–E035), and the
    ``openai`` embedder without its endpoint and model (bizmemory.E031). Returns ``checks.Error``s."""
    if not checks_apply("profiles", app_configs):
        return []
    errors = limit_errors("profiles")
    cfg = settings.BIZMEMORY
    if cfg["EMBEDDER"] == "openai" and not (cfg["EMBEDDER_OPENAI_BASE_URL"] and cfg["EMBEDDER_OPENAI_MODEL"]):
        errors.append(check_message(
            "bizmemory.E031", "BIZMEMORY_EMBEDDER=openai needs BIZMEMORY_EMBEDDER_OPENAI_BASE_URL and _MODEL.",
        ))
    return errors


@checks.register()
def check_profiles_identifier_collation(app_configs=None, **kwargs):
    """On MySQL/MariaDB, ``profiles_platformidentity.external_id`` (the platform user id, migration
    ``profiles.0016``), ``auth_user.username`` (logins) and ``profiles_agent.slug`` (agent and
    expert slugs) must have a binary no-pad collation, or "alice", "Alice" and
    "alice " are one account (issue 14; migration ``profiles.0010_identifier_collation``).
    Returns one ``checks.Error`` bizmemory.E040 per column that lost it (an Error: the server
    must not start mixing users), ``[]`` on SQLite/PostgreSQL or before that migration ran.
    Not tagged ``database`` so that every command (runserver, qcluster, check) runs it."""
    if not checks_apply("profiles", app_configs):
        return []
    from django.contrib.auth import get_user_model

    from .models import Agent, PlatformIdentity

    migration = ("profiles", "0010_identifier_collation")
    columns = [
        ExactColumn(get_user_model(), "username", migration), ExactColumn(Agent, "slug", migration),
        ExactColumn(PlatformIdentity, "external_id", ("profiles", "0016_platform_identity_fill")),
    ]
    return [check_message("bizmemory.E040", problem) for problem in collation_problems(columns)]
