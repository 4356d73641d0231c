"""How every screen says a revert went: its summary, the refusal's reason, or 404."""

import pytest
from django.http import Http404

from curation.models import AuditEvent
from curation.services.audit import RevertRefused
from curation.views.responses import revert_notice


def _raise(exc: Exception):
    def revert():
        raise exc

    return revert


def test_a_revert_says_its_summary_and_what_follows():
    notice = revert_notice(
        lambda: AuditEvent(summary="Reverted: X."),
        missing="No such entry.",
        refused="Entry 3 was not reverted",
        refusals=(RevertRefused,),
        then=" The pair is pending again.",
    )
    assert (notice.level, notice.text) == ("success", "Reverted: X. The pair is pending again.")


def test_a_refused_revert_says_why_and_a_missing_entry_is_404():
    def said(exc):
        return revert_notice(
            _raise(exc), missing="No such entry.", refused="Not undone", refusals=(RevertRefused,)
        )

    notice = said(RevertRefused("reverted already"))
    assert (notice.level, notice.text) == ("error", "Not undone: reverted already")
    with pytest.raises(Http404, match="No such entry."):
        said(AuditEvent.DoesNotExist())
    with pytest.raises(ValueError):  # anything else is not the revert's to say
        said(ValueError("boom"))
