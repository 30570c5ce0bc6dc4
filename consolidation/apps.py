from django.apps import AppConfig


class ConsolidationConfig(AppConfig):
    default_auto_field = 'django.db.models.BigAutoField'
    name = 'consolidation'
