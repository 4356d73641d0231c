from django.apps import AppConfig


class CurationConfig(AppConfig):
    name = "curation"
    verbose_name = "Curation"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from curation.roles import sync_role_groups_after_migrate

        post_migrate.connect(sync_role_groups_after_migrate, sender=self)
