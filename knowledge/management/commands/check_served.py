import datetime as dt
import json
import sys
from dataclasses import asdict

from django.core.management.base import BaseCommand, CommandError

from knowledge.domain.temporal import as_of_or_today
from knowledge.services.served_check import ServedCheck, served_check

ROWS_SHOWN = 20


class Command(BaseCommand):
    help = (
        "Count what the knowledge base would serve wrongly on a day: units served as current "
        "whose stated period ended (or undated figures of yearly concepts), and groups of "
        "living units sharing one evidence quote."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--as-of", help="the day to check, YYYY-MM-DD (default today)", default=None
        )
        parser.add_argument("--json", action="store_true", help="print the full report as JSON")
        parser.add_argument(
            "--fail", action="store_true", help="exit 1 when either count is above 0"
        )
        parser.add_argument(
            "--limit", type=int, default=ROWS_SHOWN, help="rows shown of each list (table only)"
        )

    def handle(self, *args, **options):
        day = _day(options["as_of"])
        if options["limit"] < 0:
            raise CommandError(f"--limit must be 0 or more, not {options['limit']}")
        check = served_check(as_of=day)
        if options["json"]:
            report = {"as_of": day, "living_units": check.living_units, **check.counts}
            report |= {"stale": [asdict(s) for s in check.stale]}
            report |= {"shared_quotes": [asdict(g) for g in check.shared_quotes]}
            self.stdout.write(json.dumps(report, indent=2, default=str, ensure_ascii=False))
        else:
            self._print(check, options["limit"])
        if options["fail"] and any(check.counts.values()):
            self.stderr.write(f"check_served: {_counts_line(check)}")
            sys.exit(1)

    def _print(self, check: ServedCheck, limit: int) -> None:
        write = self.stdout.write
        write(f"check_served on {check.as_of}: {_counts_line(check)}")
        if check.stale and limit:
            write(f"\nServed as current past their period ({len(check.stale)}):")
            write(f"  {'unit':>7}  {'concept':<36} {'why':<36} stated")
            for s in check.stale[:limit]:
                write(f"  {s.unit_id:>7}  {s.concept:<36} {s.why:<36} {s.stated}")
        if check.shared_quotes and limit:
            write(f"\nGroups of units sharing one quote ({len(check.shared_quotes)}):")
            for g in check.shared_quotes[:limit]:
                ids = ", ".join(map(str, g.unit_ids))
                write(f"  units {ids} on {g.source_url}: {g.quote[:80]}")


def _counts_line(check: ServedCheck) -> str:
    counts = check.counts
    return (
        f"{counts['stale_as_current']} served as current past their period, "
        f"{counts['shared_quote_groups']} groups sharing one quote "
        f"(of {check.living_units} living units)"
    )


def _day(value: str | None) -> dt.date:
    try:
        as_of = None if value is None else dt.date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--as-of: {value!r} is not a day as YYYY-MM-DD") from None
    return as_of_or_today(as_of)
