from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from curation.quality import quality_check
from knowledge.models import Category


class Command(BaseCommand):
    help = (
        "Quality job: flag units that seem to belong to another concept of their category "
        "(heuristic: embedding similarity, no LLM), for editors to accept or dismiss."
    )

    def add_arguments(self, parser):
        parser.add_argument("--category", help="a category slug (default: all)")
        parser.add_argument("--margin", type=float, help="default: QUALITY_MISPLACED_MARGIN")

    def handle(self, *args, category: str | None, margin: float | None, **options):
        total = 1 if category else Category.objects.count()
        try:
            with tqdm(total=total, unit="category", file=self.stderr._out) as bar:
                report = quality_check(category_slug=category, margin=margin, progress=bar.update)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        for slug, count in sorted(report.by_category.items(), key=lambda item: -item[1]):
            self.stdout.write(f"  {slug:<40} {count:>5} flagged")
        self.stdout.write(
            f"checked {report.units_checked} units: {report.flags_raised} misplaced flags raised, "
            f"{report.already_open} already open, {report.dismissed_before} dismissed before "
            "(not raised again); provider: heuristic"
        )
