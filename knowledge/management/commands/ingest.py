import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from knowledge import govuk
from knowledge.services import ingest
from knowledge.task_queue import TaskQueueUnavailable, task_queue_required
from knowledge.tasks import ingest_batch, ingest_page


class Command(BaseCommand):
    help = "Ingest gov.uk pages from a local directory, the Content API or a seed list."

    def add_arguments(self, parser):
        what = parser.add_mutually_exclusive_group(required=True)
        what.add_argument("--from-dir", type=Path, metavar="DIR", help="page files (*.json)")
        what.add_argument(
            "--govuk", nargs="+", metavar="PATH", help="gov.uk paths, e.g. /child-benefit"
        )
        what.add_argument("--seed-list", type=Path, metavar="FILE", help="gov.uk paths, one a line")
        parser.add_argument(
            "--timeout", type=float, default=3600, help="seconds to wait for workers"
        )
        parser.add_argument("--quiet-progress", action="store_true", help="no progress bar")
        parser.add_argument(
            "--captured-on",
            metavar="YYYY-MM-DD",
            help="with --from-dir: the day the page files were captured (a file's own "
            "captured_at wins); their yearly figures printed with no year are dated by it",
        )

    def handle(
        self,
        *args,
        from_dir,
        govuk: list | None,
        seed_list,
        timeout,
        quiet_progress,
        captured_on,
        **options,
    ):
        job = self._create_job(from_dir, govuk, seed_list, captured_on)
        self.stdout.write(f"ingest job {job.pk}: {job.total} pages ({job.get_kind_display()})")
        with tqdm(
            total=job.total, unit="page", disable=quiet_progress, file=self.stderr._out
        ) as bar:
            if settings.CELERY_TASK_ALWAYS_EAGER:
                for ref in job.refs:
                    ingest_page.delay(job.pk, ref)
                    bar.update(1)
            else:
                ingest_batch.delay(job.pk)
                self._wait(job.pk, bar, timeout)
        progress = ingest.ingest_job_progress(job_id=job.pk)
        self._summary(progress)
        if progress["counts"]["failed"]:
            raise CommandError(f"{progress['counts']['failed']} page(s) failed")

    def _create_job(self, from_dir, paths, seed_list, captured_on):
        try:
            task_queue_required()
            if captured_on is not None and from_dir is None:
                raise ValueError("--captured-on goes with --from-dir: a fetch is captured today")
            if from_dir is not None:
                day = ingest.captured_on_checked(captured_on) if captured_on else None
                return ingest.directory_job_create(root=from_dir, captured_on=day)
            if seed_list is not None:
                paths = ingest.seed_list_read(path=seed_list)
            return ingest.govuk_job_create(paths=paths)
        except (ValueError, govuk.FetchError, TaskQueueUnavailable) as exc:
            raise CommandError(str(exc)) from exc

    def _wait(self, job_id, bar, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            progress = ingest.ingest_job_progress(job_id=job_id)
            bar.update(progress["done"] - bar.n)
            if progress["done"] >= progress["total"]:
                return
            time.sleep(0.5)
        raise CommandError(f"job {job_id} not finished after {timeout:.0f}s; is a worker running?")

    def _summary(self, progress):
        counts = progress["counts"]
        self.stdout.write("")
        self.stdout.write(f"{'outcome':<10} {'pages':>6}")
        for outcome, count in counts.items():
            self.stdout.write(f"{outcome:<10} {count:>6}")
        self.stdout.write(f"{'total':<10} {progress['done']:>6}")
        for ref, reason in progress["failures"]:
            self.stdout.write(self.style.WARNING(f"  {ref}: {reason}"))
