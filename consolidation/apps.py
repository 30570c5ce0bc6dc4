from django.apps import AppConfig


class ConsolidationConfig(AppConfig):
    default_auto_field = 'django.db.models.BigAutoField'
    name = 'consolidation'

    def ready(self):
        from . import checks  # noqa: F401  (registers system checks)
