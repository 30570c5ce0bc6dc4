"""System checks of the project-wide settings (ids ``bizmemory.E0xx`` / ``W0xx``).

Each app checks its own settings from the schema ``bizmemory/conf.py``: the limits of the
settings it owns (:func:`bizmemory.conf.limit_errors`) and the checks declared for it in
:data:`bizmemory.conf.CHECKS`. This module covers the ``bizmemory`` app (the tokenizer, the
health endpoint's limits, the secret key); ``consolidation``, ``profiles`` and ``audit`` have a ``checks.py`` of their own.
They run at start of every management command and of the web server, so a bad setting stops
the process with a message that names it.
"""

from django.conf import settings
from django.core import checks

from .conf import check_message, checks_apply, limit_errors, secret_key_problem


@checks.register()
def check_bizmemory_settings(app_configs=None, **kwargs):
    """Limits of the ``bizmemory`` app's settings (``BIZMEMORY_TOKENIZER``, bizmemory.E006; the
    ``BIZMEMORY_HEALTH_*`` seconds, bizmemory.E002).
    Returns a list of ``checks.Error``."""
    return limit_errors("bizmemory") if checks_apply("bizmemory", app_configs) else []


@checks.register(checks.Tags.security, deploy=True)
def check_secret_key(app_configs=None, **kwargs):
    """``manage.py check --deploy``: an error when SECRET_KEY is unset (the development default)
    with DEBUG off (bizmemory.E050) — the web server refuses to start then (``bizmemory/wsgi.py``)."""
    problem = secret_key_problem(debug=settings.DEBUG, secret_key=settings.SECRET_KEY)
    return [check_message("bizmemory.E050", problem)] if problem else []
