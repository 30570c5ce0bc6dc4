from django.apps import AppConfig


class ConsolidationConfig(AppConfig):
    default_auto_field = 'django.db.models.BigAutoField'
    name = 'consolidation'

    def ready(self):
        """Register the app's system checks and fill the lower apps' registries with the
        pipeline's side (``profiles.ports``, ``audit.ports``)."""
        from audit.ports import quarantine_resubmitter_register
        from profiles.ports import conversations_register

        from . import checks  # noqa: F401  (registers system checks)
        from .ports import ConversationPort
        from .quarantine_review import QuarantineResubmitter

        conversations_register(ConversationPort())
        quarantine_resubmitter_register(QuarantineResubmitter())
