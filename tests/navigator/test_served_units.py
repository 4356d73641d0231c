"""The query log keeps the units each call served, in the order served: what curation's
review queue weighs units by, read through the seam the API registers (curation.exposure)."""

import datetime as dt

from django.utils import timezone

from curation.exposure import UnitExposure, unit_exposure
from navigator.models import QueryLog


def test_a_search_logs_its_units_in_the_order_served(kb, api):
    body = api.search(query="Statutory Sick Pay weekly rate").json()
    served = [u["id"] for c in body["concepts"] for s in c["sources"] for u in s["units"]]
    log = QueryLog.objects.latest("created_at")
    assert len(served) >= 4 and log.result_units == list(dict.fromkeys(served))
    exposure = unit_exposure(since=log.created_at, until=timezone.now() + dt.timedelta(seconds=1))
    first, fourth = log.result_units[0], log.result_units[3]
    assert exposure[first] == UnitExposure(weight=1.0, times=1, top=1)
    assert exposure[fourth] == UnitExposure(weight=0.25, times=1, top=0)


def test_a_concept_and_a_unit_log_the_units_they_serve(kb, api):
    taxonomy_id = api.search(query="ISA allowance").json()["concepts"][0]["taxonomy_id"]
    units = [unit["id"] for unit in api.get(f"/concepts/{taxonomy_id}").json()["units"]]
    assert units and QueryLog.objects.latest("created_at").result_units == units
    assert api.get(f"/units/{units[-1]}").status_code == 200
    assert QueryLog.objects.latest("created_at").result_units == [units[-1]]
