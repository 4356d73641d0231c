from django.apps import AppConfig


class CurationConfig(AppConfig):
    name = "curation"
    verbose_name = "Curation"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from curation.receivers import audit_units_retired, detect_after_embedding
        from curation.roles import sync_role_groups_after_migrate
        from knowledge.signals import units_embedded, units_retired

        post_migrate.connect(sync_role_groups_after_migrate, sender=self)
        units_embedded.connect(detect_after_embedding, dispatch_uid="curation.detect_superseding")
        units_retired.connect(audit_units_retired, dispatch_uid="curation.audit_units_retired")
