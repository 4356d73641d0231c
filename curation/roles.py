"""The two human roles and what each may do: experts decide superseding pairs and sign units
off, editors change the taxonomy, each only through the audited services of their screens.
Groups are created by migration 0001 and kept in step after every migrate (permissions added
by later migrations join their group)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied

DOMAIN_EXPERT = "domain expert"
EDITOR = "editor"

_VIEW_KNOWLEDGE = [
    "knowledge.view_category",
    "knowledge.view_concept",
    "knowledge.view_conceptalias",
    "knowledge.view_source",
    "knowledge.view_pagesnapshot",
    "knowledge.view_atomicunit",
    "knowledge.view_unitsighting",
]

ROLE_PERMISSIONS: dict[str, list[str]] = {
    DOMAIN_EXPERT: [
        *_VIEW_KNOWLEDGE,
        "knowledge.signoff_atomicunit",
        # Correct a unit's facts (text, type, value, dates, quote, concept) through the unit
        # editor's audited service; editors may move units but not change their facts.
        "knowledge.change_atomicunit",
        "curation.view_supersedingcandidate",
        "curation.decide_supersedingcandidate",
        "curation.view_detectionrun",
        "curation.view_auditevent",
        "curation.judge_auditsample",
    ],
    # The taxonomy screens' audited services need only `change_concept`; the admin's other
    # change rights would be a way around them, so editors hold none (the admin also refuses
    # everyone but superusers).
    EDITOR: [
        *_VIEW_KNOWLEDGE,
        "knowledge.change_concept",
        "curation.view_auditevent",
        "curation.judge_auditsample",
    ],
}


def require_role(user, *permissions: str, action: str) -> None:
    """Refuse (PermissionDenied) anyone but an active, signed-in person holding one of
    `permissions`. The refusal names the roles that hold them and `action`, what they may do;
    the 403 page shows it."""
    signed_in = user and user.is_authenticated and user.is_active
    if signed_in and any(user.has_perm(permission) for permission in permissions):
        return
    raise PermissionDenied(f"Only {_roles_holding(permissions)} may {action}.")


def _roles_holding(permissions: tuple[str, ...]) -> str:
    roles = [
        f"{role}s"
        for role, held in ROLE_PERMISSIONS.items()
        if any(permission in held for permission in permissions)
    ]
    return " and ".join(roles) or "superusers"


def sync_role_groups(apps) -> None:
    """Make each role group hold exactly its declared permissions that exist so far.

    `apps` is a migration's historical registry or `django.apps.apps`.
    """
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    for role, wanted in ROLE_PERMISSIONS.items():
        group, _ = group_model.objects.get_or_create(name=role)
        permissions = []
        for dotted in wanted:
            app_label, codename = dotted.split(".", 1)
            permission = permission_model.objects.filter(
                content_type__app_label=app_label, codename=codename
            ).first()
            if permission is not None:
                permissions.append(permission)
        group.permissions.set(permissions)


def sync_role_groups_after_migrate(sender, **kwargs) -> None:
    from django.apps import apps

    sync_role_groups(apps)
