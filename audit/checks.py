"""System checks of the audit app's settings: quarantine retention, the sensitive-word file and
the quarantine encryption key (limits and check ids from ``bizmemory/conf.py``)."""

import os

from django.conf import settings
from django.core import checks

from bizmemory.conf import check_message, checks_apply, limit_errors

from .crypto import quarantine_key_problem


@checks.register()
def check_audit_settings(app_configs=None, **kwargs):
    """``BIZMEMORY_QUARANTINE_RETENTION_DAYS`` ≥ 1 (bizmemory.E004), a
    ``BIZMEMORY_SENSITIVE_WORDS_FILE`` that exists (E007) and a usable quarantine key (E010).
    Returns ``checks.Error``s naming the variable."""
    if not checks_apply("audit", app_configs):
        return []
    errors = limit_errors("audit")
    words_file = settings.BIZMEMORY["SENSITIVE_WORDS_FILE"]
    if words_file and not os.path.isfile(words_file):
        errors.append(check_message("bizmemory.E007", f"BIZMEMORY_SENSITIVE_WORDS_FILE names a missing file: {words_file}"))
    problem = quarantine_key_problem()
    if problem:
        errors.append(check_message("bizmemory.E010", problem))
    return errors
