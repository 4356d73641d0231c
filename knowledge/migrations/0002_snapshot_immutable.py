from django.db import migrations

FORBID_SNAPSHOT_UPDATE = """
CREATE OR REPLACE FUNCTION knowledge_snapshot_immutable() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'page snapshots are immutable (snapshot %)', OLD.id
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER knowledge_snapshot_no_update
    BEFORE UPDATE ON knowledge_pagesnapshot
    FOR EACH ROW EXECUTE FUNCTION knowledge_snapshot_immutable();
"""

ALLOW_SNAPSHOT_UPDATE = """
DROP TRIGGER IF EXISTS knowledge_snapshot_no_update ON knowledge_pagesnapshot;
DROP FUNCTION IF EXISTS knowledge_snapshot_immutable();
"""


class Migration(migrations.Migration):
    """Snapshots are the evidence behind every unit: once written they never change."""

    dependencies = [("knowledge", "0001_initial")]

    operations = [migrations.RunSQL(FORBID_SNAPSHOT_UPDATE, ALLOW_SNAPSHOT_UPDATE)]
