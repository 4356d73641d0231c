"""Curation services: people, roles and (in later modules) the review decisions."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from curation.roles import DOMAIN_EXPERT, EDITOR

DEMO_ACCOUNTS = (
    ("admin", None, True),
    ("expert", DOMAIN_EXPERT, False),
    ("editor", EDITOR, False),
)


class DemoModeRequired(PermissionError):
    pass


@dataclass(frozen=True)
class DemoLogin:
    username: str
    password: str
    role: str


def demo_users_create() -> list[DemoLogin]:
    """Create (or reset) the demo accounts with fresh random passwords. Demo mode only."""
    if not settings.DEMO_MODE:
        raise DemoModeRequired("demo users exist only in demo mode (NAVIGATOR_DEMO=true)")
    user_model = get_user_model()
    logins = []
    with transaction.atomic():
        for username, role, is_superuser in DEMO_ACCOUNTS:
            user, _ = user_model.objects.get_or_create(username=username)
            password = secrets.token_urlsafe(9)
            user.set_password(password)
            user.is_staff = True
            user.is_superuser = is_superuser
            user.save()
            if role:
                user.groups.set([Group.objects.get(name=role)])
            logins.append(DemoLogin(username, password, role or "superuser"))
    return logins
