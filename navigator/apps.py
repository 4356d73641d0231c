from django.apps import AppConfig


class NavigatorConfig(AppConfig):
    name = "navigator"
    verbose_name = "Navigator"
