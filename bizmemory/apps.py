from django.apps import AppConfig


class BizMemoryConfig(AppConfig):
    name = "bizmemory"
    verbose_name = "BizMemory"

    def ready(self):
        from . import checks  # noqa: F401  (registers system checks)
