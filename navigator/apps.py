from django.apps import AppConfig


class NavigatorConfig(AppConfig):
    name = "navigator"
    verbose_name = "Navigator"

    def ready(self):
        from navigator import signals  # noqa: F401 - connects the login receivers
