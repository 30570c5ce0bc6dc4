"""System checks of the consolidation app: its settings (extraction, the LLM refiner,
consolidation batches and loss guard, versions, retention; limits from ``bizmemory/conf.py``)
and its identifier columns on MySQL/MariaDB (session and message ids byte-exact, bizmemory.E041)."""

from django.core import checks

from bizmemory.collation import ExactColumn, collation_problems
from bizmemory.conf import check_message, checks_apply, limit_errors


@checks.register()
def check_consolidation_settings(app_configs=None, **kwargs):
    """Every consolidation setting outside its limit (bizmemory.E001–E005, E020), as ``checks.Error``
    naming the variable."""
    return limit_errors("consolidation") if checks_apply("consolidation", app_configs) else []


@checks.register()
def check_consolidation_identifier_collation(app_configs=None, **kwargs):
    """On MySQL/MariaDB, ``consolidation_session.external_id`` (the platform's session id) and
    ``consolidation_message.external_id`` (its message id) must have a binary no-pad collation,
    or "S1" and "s1 " are one session and a retry with another id's case is taken for a
    duplicate (issue 14; migrations ``consolidation.0010`` and ``0006``). Returns one
    ``checks.Error`` bizmemory.E041 per column that lost it, ``[]`` on SQLite/PostgreSQL or
    before its migration ran. Not tagged ``database``: every command runs it."""
    if not checks_apply("consolidation", app_configs):
        return []
    from .models import Message, Session

    columns = [
        ExactColumn(Session, "external_id", ("consolidation", "0010_session_external_id_collation")),
        ExactColumn(Message, "external_id", ("consolidation", "0006_message_external_id")),
    ]
    return [check_message("bizmemory.E041", problem) for problem in collation_problems(columns)]
