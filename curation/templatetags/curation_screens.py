"""Links to the curation screens, each shown only to people that screen lets in:

- `{% curation_screens user as groups %}`: the admin home's groups of screens;
- `{% screen_links "curation:audit" "curation:jobs" … %}`: a screen's navigation;
- `{% if user|may_open:"curation:jobs" %}`: one link."""

from __future__ import annotations

from django import template

from curation.views import navigation

register = template.Library()


@register.simple_tag
def curation_screens(user) -> list[navigation.ScreenGroup]:
    return navigation.screens_for(user)


@register.inclusion_tag("curation/_screen_links.html", takes_context=True)
def screen_links(context, *url_names: str) -> dict:
    request = context["request"]
    return {"links": navigation.screen_links(request.user, url_names), "here": request.path}


@register.filter
def may_open(user, url_name: str) -> bool:
    return navigation.may_open(user, url_name)
