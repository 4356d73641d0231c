"""A row decided once: locked, and refused when it is gone or no longer open."""

import pytest

from curation.services.locks import row_lock_in_status
from knowledge.models import QualityFlag
from tests.factories import UnitFactory

pytestmark = pytest.mark.django_db


class Refused(Exception):
    pass


def locked(pk: int) -> QualityFlag:
    return row_lock_in_status(
        QualityFlag.objects.all(),
        pk=pk,
        status=QualityFlag.Status.OPEN,
        refusal=Refused,
        missing=f"no flag {pk}",
        taken=lambda flag: f"already {flag.status}",
    )


def test_an_open_row_is_locked_and_returned_and_any_other_refused():
    flag = QualityFlag.objects.create(unit=UnitFactory(), kind="stale_source", reason="r")
    assert locked(flag.pk) == flag
    QualityFlag.objects.filter(pk=flag.pk).update(status=QualityFlag.Status.DISMISSED)
    with pytest.raises(Refused, match="already dismissed"):
        locked(flag.pk)
    with pytest.raises(Refused, match=f"no flag {flag.pk + 1}"):
        locked(flag.pk + 1)
