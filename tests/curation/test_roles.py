import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.models import AnonymousUser, Group
from django.core.exceptions import PermissionDenied

from curation.roles import DOMAIN_EXPERT, EDITOR, ROLE_PERMISSIONS, require_role
from curation.services.users import DemoModeRequired, demo_users_create

pytestmark = pytest.mark.django_db


def test_role_groups_exist_with_exactly_their_permissions():
    for role, wanted in ROLE_PERMISSIONS.items():
        group = Group.objects.get(name=role)
        held = {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.all()}
        assert held == set(wanted)


def test_only_editors_change_the_taxonomy_and_only_experts_sign_off():
    expert = set(ROLE_PERMISSIONS[DOMAIN_EXPERT])
    editor = set(ROLE_PERMISSIONS[EDITOR])
    assert "knowledge.change_concept" in editor - expert
    assert "knowledge.signoff_atomicunit" in expert - editor


def test_demo_users_are_refused_outside_demo_mode(settings):
    settings.DEMO_MODE = False
    with pytest.raises(DemoModeRequired):
        demo_users_create()


def test_demo_users_get_roles_and_working_random_passwords(settings):
    settings.DEMO_MODE = True
    logins = {login.username: login for login in demo_users_create()}
    assert set(logins) == {"admin", "expert", "editor"}
    expert = authenticate(username="expert", password=logins["expert"].password)
    assert expert is not None and expert.groups.filter(name=DOMAIN_EXPERT).exists()
    again = {login.username: login for login in demo_users_create()}
    assert again["editor"].password != logins["editor"].password
    assert authenticate(username="editor", password=logins["editor"].password) is None


def test_a_refusal_names_the_roles_that_may_and_what_they_may_do(expert, editor):
    require_role(editor, "knowledge.change_concept", action="change the taxonomy")
    with pytest.raises(PermissionDenied, match=r"^Only editors may change the taxonomy\.$"):
        require_role(expert, "knowledge.change_concept", action="change the taxonomy")
    with pytest.raises(PermissionDenied, match=r"^Only domain experts and editors may judge"):
        require_role(AnonymousUser(), "curation.judge_auditsample", action="judge audit samples")
