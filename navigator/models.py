"""Callers of the public API and the log of what they asked."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiToken(models.Model):
    """A downstream app's credential. Only a hash is stored; the raw token is shown once."""

    PREFIX = "nav_"

    name = models.CharField(max_length=100, unique=True)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    token_prefix = models.CharField(max_length=12, editable=False, help_text="To recognise it")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"token {self.pk} ({self.name})"

    @classmethod
    def new_raw_token(cls) -> str:
        return cls.PREFIX + secrets.token_urlsafe(32)


class QueryLog(models.Model):
    """Every API call: who, what, the outcome, what came back and how long each stage took."""

    token = models.ForeignKey(ApiToken, on_delete=models.SET_NULL, null=True, blank=True)
    endpoint = models.CharField(max_length=100)
    status_code = models.PositiveSmallIntegerField()
    query = models.TextField(blank=True)
    params = models.JSONField(default=dict, blank=True)
    outcome = models.CharField(max_length=20, blank=True)
    reasons = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    result_concepts = models.JSONField(default=list, blank=True)
    # The ids of the units served, in the order served (curation's review queue weighs a unit
    # by how often and how high users were shown it).
    result_units = models.JSONField(default=list, blank=True)
    timings_ms = models.JSONField(default=dict, blank=True)
    # How the query was understood (turn type, rewrite, searches, dates); empty for calls
    # that do not search.
    analysis = models.JSONField(default=dict, blank=True)
    # Failed authentications from one address within one window share a row and count,
    # so that a flood of bad tokens cannot grow the log without bound.
    client_address = models.GenericIPAddressField(null=True, blank=True)
    repeats = models.PositiveIntegerField(default=1, help_text="Calls this row stands for")
    last_repeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.endpoint} {self.status_code} {self.outcome}"


class AccessEvent(models.Model):
    """Who got in or failed to, and what was done to credentials and the query log.

    Kept apart from curation's AuditEvent, whose events are revertible changes to the
    knowledge base: a failed login has no record it changed and often no user at all."""

    KINDS = [
        ("login", "login"),
        ("login_failed", "failed login"),
        ("login_throttled", "login refused after repeated failures"),
        ("token_created", "API token created"),
        ("token_revoked", "API token revoked"),
        ("query_log_purged", "query log purged"),
    ]

    kind = models.CharField(max_length=30, choices=KINDS)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    username = models.CharField(max_length=150, blank=True, help_text="As typed, for logins")
    client_address = models.GenericIPAddressField(null=True, blank=True)
    detail = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.username or self.actor_id or ''}".strip()
