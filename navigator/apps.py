from django.apps import AppConfig


class NavigatorConfig(AppConfig):
    name = "navigator"
    verbose_name = "Navigator"

    def ready(self):
        from curation.exposure import exposure_reader_register
        from navigator import signals  # noqa: F401 - connects the login receivers
        from navigator.exposure import query_log_exposure

        # Curation's review queue weighs units by what the API served (curation.exposure).
        exposure_reader_register(query_log_exposure)
