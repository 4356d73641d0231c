import time
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from knowledge.selectors import knowledge_base_counts
from navigator.services import demo_api_token

FIXTURES_CAPTURED_ON = "2024-12-15"


class Command(BaseCommand):
    help = (
        "Everything `make demo` does before serving: migrate, taxonomy, users, ingest, extract, "
        "embed, superseding detection."
    )

    def handle(self, *args, **options):
        started = time.perf_counter()
        steps = [
            ("migrate", {"interactive": False, "verbosity": 0}),
            ("load_taxonomy", {}),
            ("create_demo_users", {}),
            # The sample pages were written with 2024-25 figures (fixtures/govuk/README.md):
            # captured, as far as dating goes, in that tax year.
            (
                "ingest",
                {
                    "from_dir": Path(settings.BASE_DIR) / "fixtures" / "govuk",
                    "captured_on": FIXTURES_CAPTURED_ON,
                },
            ),
            ("extract", {"all": True}),
            ("dedup_units", {}),
            ("embed", {}),
            ("detect_superseding", {"quiet_progress": True}),
        ]
        for name, kwargs in steps:
            self.stdout.write(self.style.MIGRATE_HEADING(f"== {name}"))
            call_command(name, **kwargs)
        counts = knowledge_base_counts()
        raw = demo_api_token()
        elapsed = time.perf_counter() - started
        self.stdout.write(
            self.style.SUCCESS(
                f"Ready in {elapsed:.1f}s: {counts['categories']} categories, "
                f"{counts['concepts']} concepts, {counts['sources']} sources, "
                f"{counts['units']} units. Admin: http://127.0.0.1:8000/admin/"
            )
        )
        self.stdout.write("Try the search API (paste into another terminal once the server is up):")
        self.stdout.write(
            "  curl -s -X POST http://127.0.0.1:8000/api/v1/search "
            f"-H 'Authorization: Bearer {raw}' -H 'Content-Type: application/json' "
            """-d '{"query": "How much can I save in an ISA each tax year?", "as_of": "2024-06-01"}'"""
        )
        self.stdout.write(
            "  and for a person (who can open a Lifetime ISA, asked by a 45-year-old):"
        )
        self.stdout.write(
            "  curl -s -X POST http://127.0.0.1:8000/api/v1/search "
            f"-H 'Authorization: Bearer {raw}' -H 'Content-Type: application/json' "
            """-d '{"query": "Can I open a Lifetime ISA?", "as_of": "2024-06-01", """
            """"profile": {"age": 45, "nation": "wales"}}'"""
        )
        self.stdout.write("  API docs: http://127.0.0.1:8000/api/v1/docs")
        self.stdout.write(
            "  Agents: the tools and the recommended prompt at http://127.0.0.1:8000/api/v1/tools; "
            "MCP at http://127.0.0.1:8000/mcp with the same Bearer token"
        )
