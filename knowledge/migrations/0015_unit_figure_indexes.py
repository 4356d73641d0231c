"""Indexes for finding the units that state a figure (claim verification): the unit's value,
its other figures (JSON containment) and the figures its text prints, read by an immutable
SQL function so that the index follows every change of a text without a column to keep."""

import django.contrib.postgres.fields
import django.contrib.postgres.indexes
from django.db import migrations, models

# "£12,570", "£12,570.50", "£12570", "£20.50" and "8.75%" as printed; a thousands comma is
# taken only before three digits, so "£1,000, and" gives "£1,000". Each figure once.
PRINTED_FIGURES = r"""
CREATE FUNCTION knowledge_printed_figures(text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
    SELECT coalesce(array_agg(DISTINCT m[1]), '{}')
    FROM regexp_matches(
        $1,
        '(£[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|£[0-9]+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?%)',
        'g'
    ) AS m
$$;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("knowledge", "0014_vocabulary_changes"),
    ]

    operations = [
        migrations.RunSQL(PRINTED_FIGURES, "DROP FUNCTION knowledge_printed_figures(text)"),
        migrations.AddIndex(
            model_name="atomicunit",
            index=models.Index(fields=["value_amount"], name="unit_value_amount_idx"),
        ),
        migrations.AddIndex(
            model_name="atomicunit",
            index=django.contrib.postgres.indexes.GinIndex(
                fields=["figures"], name="unit_figures_idx", opclasses=["jsonb_path_ops"]
            ),
        ),
        migrations.AddIndex(
            model_name="atomicunit",
            index=django.contrib.postgres.indexes.GinIndex(
                models.Func(
                    models.F("text"),
                    function="knowledge_printed_figures",
                    output_field=django.contrib.postgres.fields.ArrayField(
                        base_field=models.TextField(), size=None
                    ),
                ),
                name="unit_printed_figures_idx",
            ),
        ),
    ]
