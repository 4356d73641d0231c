from django.core.management.base import BaseCommand, CommandError

from curation.services.bootstrap import BootstrapRefused, category_reextract
from knowledge.services.extract import ExtractionFailed


class Command(BaseCommand):
    help = "Extract a category's pages again, binding only to its active concepts."

    def add_arguments(self, parser):
        parser.add_argument("category", help="category slug")
        parser.add_argument("--pages", nargs="+", metavar="URL_PREFIX")
        parser.add_argument("--provider", choices=["heuristic", "openai"], default=None)

    def handle(self, *args, category, pages, provider, **options):
        from knowledge.providers import get_provider

        try:
            report = category_reextract(
                category_slug=category, url_prefixes=pages, provider=get_provider(provider)
            )
        except (BootstrapRefused, ExtractionFailed) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"re-extracted {report.pages} pages for {category}: {report.units_made} units bound"
        )
