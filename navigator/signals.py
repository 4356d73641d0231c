"""Logins and failed logins go to the access log (navigator.services holds the logic)."""

from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.dispatch import receiver

from navigator import services
from navigator.throttling import client_ip


@receiver(user_logged_in, dispatch_uid="navigator.login_record")
def on_login(sender, request, user, **kwargs):
    services.login_record(user=user, client_address=client_ip(request) if request else None)


@receiver(user_login_failed, dispatch_uid="navigator.login_failure_record")
def on_login_failed(sender, credentials, request=None, **kwargs):
    services.login_failure_record(
        username=str(credentials.get("username", "")),
        client_address=client_ip(request) if request else None,
    )
