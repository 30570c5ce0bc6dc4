from django.apps import AppConfig


class ConsolidationConfig(AppConfig):
    default_auto_field = 'django.db.models.BigAutoField'
    name = 'consolidation'

    def ready(self):
        """Register the app's system checks, fill the lower apps' registries with the
        pipeline's side (``profiles.ports``, ``audit.ports``), and make every django-q2 worker
        that starts ensure the ``pipeline-sweep`` schedule (``consolidation.sweep``)."""
        from django_q.signals import post_spawn

        from audit.ports import quarantine_resubmitter_register
        from profiles.ports import conversations_register

        from . import checks  # noqa: F401  (registers system checks)
        from .ports import ConversationPort
        from .quarantine_review import QuarantineResubmitter
        from .sweep import sweep_schedule_on_spawn

        conversations_register(ConversationPort())
        quarantine_resubmitter_register(QuarantineResubmitter())
        post_spawn.connect(sweep_schedule_on_spawn, dispatch_uid="bizmemory-sweep-schedule")
