"""The benchmark's API workers connect to exactly the database the benchmark uses."""

import dj_database_url
import pytest
from django.db import connection, connections
from django.db.backends.postgresql.base import DatabaseWrapper

from evaluation.bench.serve import _server_environment


def connection_parameters(settings_dict: dict) -> dict:
    settings_dict = {**connection.settings_dict, **settings_dict}
    return DatabaseWrapper(settings_dict).get_connection_params()


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://navigator@/bench?host=/run/managed/socket",
        "postgresql://navigator:p%40ss@db.example:6543/bench?sslmode=require&connect_timeout=5",
        "postgresql://postgres@%2Fvar%2Frun%2Fpostgresql:5433/bench",
    ],
)
def test_workers_get_the_connection_whole(monkeypatch, tmp_path, url):
    database = dj_database_url.parse(url)
    real = connections["default"]
    monkeypatch.setattr(real, "settings_dict", {**real.settings_dict, **database})
    environment = _server_environment(tmp_path / "questions.npz", embed=False)
    served = dj_database_url.parse(environment["DATABASE_URL"])
    expected = connection_parameters(database)
    got = connection_parameters(served)
    assert got.pop("application_name") == "navigator-bench-api"
    assert got == expected
