from django.conf import settings
from django.db import migrations, models

# A superseding chain is a list of one rule's values over time: each unit's validity ends
# before its successor's begins, and following successors never comes back to the start.
CHECK_CHAIN = """
CREATE OR REPLACE FUNCTION knowledge_unit_chain_check() RETURNS trigger AS $$
DECLARE
    successor record;
    predecessor record;
    next_id bigint;
    hops integer := 0;
BEGIN
    IF NEW.superseded_by_id IS NOT NULL THEN
        SELECT id, valid_from, superseded_by_id INTO successor
            FROM knowledge_atomicunit WHERE id = NEW.superseded_by_id;
        IF successor.valid_from IS NOT NULL AND (
            (NEW.valid_from IS NOT NULL AND NEW.valid_from >= successor.valid_from)
            OR (NEW.valid_to IS NOT NULL AND NEW.valid_to >= successor.valid_from)
        ) THEN
            RAISE EXCEPTION 'unit % (valid % to %) overlaps unit % that replaces it (valid from %)',
                NEW.id, NEW.valid_from, NEW.valid_to, successor.id, successor.valid_from
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF NEW.superseded_date IS NOT NULL AND NEW.valid_from IS NOT NULL
                AND NEW.superseded_date < NEW.valid_from THEN
            RAISE EXCEPTION 'unit % would be superseded (%) before it is valid (%)',
                NEW.id, NEW.superseded_date, NEW.valid_from
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        next_id := successor.superseded_by_id;
        WHILE next_id IS NOT NULL AND hops < 10000 LOOP
            IF next_id = NEW.id THEN
                RAISE EXCEPTION 'superseding unit % by % would close a cycle', NEW.id, successor.id
                    USING ERRCODE = 'integrity_constraint_violation';
            END IF;
            SELECT superseded_by_id INTO next_id FROM knowledge_atomicunit WHERE id = next_id;
            hops := hops + 1;
        END LOOP;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.valid_from IS NOT NULL THEN
        FOR predecessor IN SELECT id, valid_from, valid_to FROM knowledge_atomicunit
                WHERE superseded_by_id = NEW.id LOOP
            IF (predecessor.valid_from IS NOT NULL AND predecessor.valid_from >= NEW.valid_from)
                    OR (predecessor.valid_to IS NOT NULL AND predecessor.valid_to >= NEW.valid_from) THEN
                RAISE EXCEPTION 'unit % (valid from %) would overlap unit % that it replaces',
                    NEW.id, NEW.valid_from, predecessor.id
                    USING ERRCODE = 'integrity_constraint_violation';
            END IF;
        END LOOP;
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER knowledge_unit_chain
    BEFORE INSERT OR UPDATE OF superseded_by_id, superseded_date, valid_from, valid_to
    ON knowledge_atomicunit
    FOR EACH ROW EXECUTE FUNCTION knowledge_unit_chain_check();
"""

DROP_CHAIN_CHECK = """
DROP TRIGGER IF EXISTS knowledge_unit_chain ON knowledge_atomicunit;
DROP FUNCTION IF EXISTS knowledge_unit_chain_check();
"""


class Migration(migrations.Migration):

    dependencies = [
        ('knowledge', '0006_unit_embedding_text_hash'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddConstraint(
            model_name='atomicunit',
            constraint=models.UniqueConstraint(condition=models.Q(('superseded_by__isnull', False)), fields=('superseded_by',), name='unit_replaces_at_most_one'),
        ),
        migrations.RunSQL(CHECK_CHAIN, DROP_CHAIN_CHECK),
    ]
