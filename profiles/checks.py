"""System checks of the profiles app's settings: context budget, embedder, search and API rate
limits (limits and check ids from ``bizmemory/conf.py``)."""

from django.conf import settings
from django.core import checks

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
