"""Backup and restore with PostgreSQL's own tools: a round trip into a fresh database keeps
every table's rows and an expert's correction with its history; a backup taken while
another session writes is one consistent snapshot; a database holding data is not
overwritten unless asked; bad files and folders are refused in words."""

import json
import threading

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, connections

from curation.models import AuditEvent
from curation.services.units import unit_correct
from knowledge.models import AtomicUnit
from navigator.backup import _table_counts
from navigator.models import QueryLog
from tests.factories import UnitFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _fresh_database() -> None:
    """Everything this database holds dropped: as a newly created one."""
    with connection.cursor() as cursor:
        cursor.execute("DROP SCHEMA public CASCADE")
        cursor.execute("CREATE SCHEMA public")
    connection.close()


def test_a_round_trip_into_a_fresh_database_keeps_every_row_and_a_correction(tmp_path, expert):
    unit = UnitFactory(unit_type="rule")
    unit_correct(unit_id=unit.pk, user=expert, note="it is a limit", unit_type="threshold")
    corrected = AtomicUnit.objects.get(pk=unit.pk)
    before = _table_counts()
    history = list(AuditEvent.objects.filter(target_id=unit.pk).values_list("action", "summary"))
    file = tmp_path / "navigator.dump"

    call_command("backup", str(file))
    _fresh_database()
    call_command("restore", str(file))

    assert _table_counts() == before
    restored = AtomicUnit.objects.get(pk=unit.pk)
    assert restored.unit_type == "threshold" and restored.corrected_by_id == expert.pk
    assert restored.machine_version == corrected.machine_version and restored.machine_version
    assert list(AuditEvent.objects.filter(target_id=unit.pk).values_list("action", "summary")) == (
        history
    )
    assert json.loads((tmp_path / "navigator.dump.counts.json").read_text()) == before


def test_a_backup_taken_while_another_session_writes_is_one_snapshot(tmp_path):
    stop = threading.Event()

    def write_log_rows():
        try:
            while not stop.is_set():
                QueryLog.objects.create(endpoint="/api/v1/search", status_code=200, query="isa")
        finally:
            connections.close_all()

    writer = threading.Thread(target=write_log_rows)
    writer.start()
    try:
        file = tmp_path / "busy.dump"
        call_command("backup", str(file))
    finally:
        stop.set()
        writer.join()
    backed_up = json.loads((tmp_path / "busy.dump.counts.json").read_text())
    assert QueryLog.objects.count() > backed_up["navigator_querylog"]  # it went on writing

    _fresh_database()
    call_command("restore", str(file))  # compares every table with the counts, or fails

    assert _table_counts()["navigator_querylog"] == backed_up["navigator_querylog"]


def test_restore_refuses_a_database_holding_data_unless_told_to_replace_it(tmp_path):
    UnitFactory()
    file = tmp_path / "one.dump"
    call_command("backup", str(file))
    UnitFactory()

    with pytest.raises(CommandError, match="the database holds data .*knowledge_atomicunit 2"):
        call_command("restore", str(file))
    assert AtomicUnit.objects.count() == 2

    call_command("restore", str(file), "--replace")
    assert AtomicUnit.objects.count() == 1


def test_bad_paths_and_files_are_refused_in_words(tmp_path):
    with pytest.raises(CommandError, match="no such folder"):
        call_command("backup", str(tmp_path / "missing" / "x.dump"))
    with pytest.raises(CommandError, match="no such file"):
        call_command("restore", str(tmp_path / "absent.dump"))
    (tmp_path / "junk.dump").write_text("not a dump")
    with pytest.raises(CommandError, match="pg_restore failed"):
        call_command("restore", str(tmp_path / "junk.dump"))
    assert not list(tmp_path.glob("*.partial"))
