from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from knowledge.services.embed import concepts_embed
from knowledge.services.replay import (
    capture_steps,
    replay_step,
    served_without_quote,
    unconfirmed_with_changed_figure,
)

DEFAULT_DIR = Path(settings.BASE_DIR).parent / "shared" / "corpus" / "govuk" / "pages"


class Command(BaseCommand):
    help = (
        "Replay a directory of page captures as successive refreshes (each page's oldest "
        "capture first) and report, per step, what re-verification confirmed and unconfirmed."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", nargs="?", type=Path, default=DEFAULT_DIR)

    def handle(self, *args, directory: Path, **options):
        if not directory.is_dir():
            raise CommandError(f"not a directory: {directory}")
        concepts_embed()  # the extraction binds units to concepts by their vectors
        steps = capture_steps(directory)
        if not steps:
            raise CommandError(f"no page files (*.json) in {directory}")
        self.stdout.write(
            "step  pages  changed  confirmed  (moved)  unconfirmed  new units  concepts to review"
        )
        for number, names in enumerate(steps, start=1):
            step = replay_step(root=directory, names=names, number=number)
            self.stdout.write(
                f"{step.number:>4}  {step.pages:>5}  {step.changed:>7}  {step.confirmed:>9}  "
                f"{step.moved:>7}  {step.unconfirmed:>11}  {step.new_units:>9}  "
                f"{len(step.concepts_to_review):>3} {', '.join(sorted(step.concepts_to_review))[:200]}"
            )
            for failure in step.failures:
                self.stderr.write(f"  failed: {failure}")
        missing = served_without_quote()
        unconfirmed, changed = unconfirmed_with_changed_figure()
        self.stdout.write(
            f"served by default with a quote missing from the page's current version: {len(missing)}"
        )
        self.stdout.write(
            f"unconfirmed units with an amount: {unconfirmed}; of those, {changed} whose page now "
            "states another amount for the same concept"
        )
        if missing:
            raise CommandError(f"units served without their quote: {missing[:20]}")
