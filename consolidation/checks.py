"""System checks of the consolidation app's settings: extraction, the LLM refiner,
consolidation batches and loss guard, versions, retention (limits from ``bizmemory/conf.py``)."""

from django.core import checks

from bizmemory.conf import checks_apply, limit_errors


@checks.register()
def check_consolidation_settings(app_configs=None, **kwargs):
    """Every consolidation setting outside its limit (bizmemory.E001–E005, E020), as ``checks.Error``
    naming the variable."""
    return limit_errors("consolidation") if checks_apply("consolidation", app_configs) else []
