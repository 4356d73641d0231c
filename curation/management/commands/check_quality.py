from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from curation.selectors.jobs import provider_label
from curation.services.quality import quality_check
from knowledge.models import Category


class Command(BaseCommand):
    help = (
        "Quality job: flag units that seem to belong to another concept of their category, "
        "for editors to accept or dismiss (heuristic: embedding similarity, no LLM; openai: "
        "the model compares each unit with its concept and the nearest others, one request "
        "per unit)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--category", help="a category slug (default: all)")
        parser.add_argument(
            "--margin", type=float, help="heuristic only; default: QUALITY_MISPLACED_MARGIN"
        )
        parser.add_argument(
            "--provider",
            choices=["heuristic", "openai"],
            default=None,
            help="default: heuristic (cheap), whatever LLM_PROVIDER says",
        )

    def handle(
        self, *args, category: str | None, margin: float | None, provider: str | None, **options
    ):
        total = 1 if category else Category.objects.count()
        try:
            with tqdm(total=total, unit="category", file=self.stderr._out) as bar:
                report = quality_check(
                    category_slug=category, margin=margin, provider=provider, progress=bar.update
                )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        for slug, count in sorted(report.by_category.items(), key=lambda item: -item[1]):
            self.stdout.write(f"  {slug:<40} {count:>5} flagged")
        self.stdout.write(
            f"checked {report.units_checked} units: {report.flags_raised} misplaced flags raised, "
            f"{report.already_open} already open, {report.dismissed_before} dismissed before "
            f"(not raised again); provider: {provider_label(report.provider)}"
        )
        if report.provider_errors:
            self.stdout.write(
                self.style.WARNING(
                    f"{report.provider_errors} unit(s) not checked: the provider's answer failed "
                    f"(run again to retry them): {'; '.join(report.errors)}"
                )
            )
        if report.prompt_tokens or report.completion_tokens:
            self.stdout.write(
                f"tokens: {report.prompt_tokens} prompt, {report.completion_tokens} completion "
                f"({report.model})"
            )
