"""The README gives the address of every curation screen, so a new user can find each one."""

from pathlib import Path

import pytest

from curation.urls import urlpatterns

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


@pytest.mark.django_db
def test_the_readme_gives_every_curation_screen_s_address(client, superuser):
    # A screen is a page without ids in its path that opens with a GET (actions answer 405).
    client.force_login(superuser)
    routes = [f"/curation/{p.pattern}" for p in urlpatterns if "<" not in str(p.pattern)]
    screens = [route for route in routes if client.get(route).status_code == 200]
    assert "/curation/changes/" in screens and "/curation/taxonomy/" in screens
    assert [screen for screen in screens if screen not in README] == []
