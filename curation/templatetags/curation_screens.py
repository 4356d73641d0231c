"""`{% curation_screens user as groups %}`: the curation screens a person may open, for the
admin home."""

from __future__ import annotations

from django import template

from curation.views.access import ScreenGroup, screens_for

register = template.Library()


@register.simple_tag
def curation_screens(user) -> list[ScreenGroup]:
    return screens_for(user)
