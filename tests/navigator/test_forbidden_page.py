"""A screen a role may not open answers 403 with a page in the site's layout that says which
role it needs and leads back to the screens the person may open, with DEBUG on or off."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("debug", [True, False])
def test_a_forbidden_screen_says_who_may_open_it_in_the_site_layout(
    client, editor, settings, debug
):
    settings.DEBUG = debug
    client.force_login(editor)
    response = client.get(reverse("curation:review"))
    assert response.status_code == 403
    page = response.content.decode()
    assert 'id="header"' in page and "Navigator administration" in page  # the base layout
    assert "Only domain experts may decide superseding candidates." in page
    assert f'href="{reverse("admin:index")}"' in page
    assert "editor1" in page  # who is signed in
