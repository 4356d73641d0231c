"""The query vocabulary's change log: a row per transaction that changes what the query
analysis reads, written by triggers so that no write path is missed."""

import django.db.models.functions.datetime
from django.db import migrations, models

# One row per transaction, counting its changes: the first change of a transaction inserts
# the row and notes its id in a setting local to the transaction (undone with it, or with a
# savepoint rolled back); later ones add to that row, which no other session can see yet,
# so writers never wait for each other and a reader inside the transaction sees each change.
FUNCTION = """
CREATE FUNCTION knowledge_vocabulary_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    held text := current_setting('navigator.vocabulary_change', true);
    this_transaction text := pg_current_xact_id()::text;
    logged bigint;
BEGIN
    IF held IS NOT NULL AND split_part(held, ':', 1) = this_transaction THEN
        UPDATE knowledge_vocabularychange SET changes = changes + 1
        WHERE id = split_part(held, ':', 2)::bigint;
    ELSE
        INSERT INTO knowledge_vocabularychange (changed_at, changes) VALUES (now(), 1)
        RETURNING id INTO logged;
        PERFORM set_config('navigator.vocabulary_change', this_transaction || ':' || logged, true);
    END IF;
    RETURN NULL;
END
$$;
"""

WHOLE_TABLES = ("knowledge_category", "knowledge_glossaryterm", "knowledge_lifeevent")


def _statement_trigger(table: str, events: str) -> str:
    return (
        f"CREATE TRIGGER {table}_vocabulary AFTER {events} ON {table}"
        " FOR EACH STATEMENT EXECUTE FUNCTION knowledge_vocabulary_changed();"
    )


TRIGGERS = [
    *(
        _statement_trigger(table, "INSERT OR UPDATE OR DELETE OR TRUNCATE")
        for table in WHOLE_TABLES
    ),
    _statement_trigger("knowledge_concept", "INSERT OR DELETE OR TRUNCATE"),
    # A concept's embedding, counts and timestamps change often and mean nothing to the
    # vocabulary: only its name, its id (glossary entries name it) and its status do.
    """
    CREATE TRIGGER knowledge_concept_vocabulary_row AFTER UPDATE ON knowledge_concept
    FOR EACH ROW WHEN (
        OLD.name IS DISTINCT FROM NEW.name
        OR OLD.taxonomy_id IS DISTINCT FROM NEW.taxonomy_id
        OR OLD.status IS DISTINCT FROM NEW.status
    ) EXECUTE FUNCTION knowledge_vocabulary_changed();
    """,
]

DROP = [
    *(
        f"DROP TRIGGER {table}_vocabulary ON {table};"
        for table in (*WHOLE_TABLES, "knowledge_concept")
    ),
    "DROP TRIGGER knowledge_concept_vocabulary_row ON knowledge_concept;",
    "DROP FUNCTION knowledge_vocabulary_changed();",
]


class Migration(migrations.Migration):
    dependencies = [
        ("knowledge", "0013_extraction_run_summary"),
    ]

    operations = [
        migrations.CreateModel(
            name="VocabularyChange",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                (
                    "changed_at",
                    models.DateTimeField(db_default=django.db.models.functions.datetime.Now()),
                ),
                ("changes", models.PositiveIntegerField(default=1)),
            ],
            options={
                "db_table": "knowledge_vocabularychange",
            },
        ),
        migrations.RunSQL([FUNCTION, *TRIGGERS], reverse_sql=DROP),
    ]
