import signal

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from navigator.embedded_db import embedded_database_stop


class Command(BaseCommand):
    help = (
        "What `make demo` serves with: the development server, in one process; when it stops "
        "(Ctrl-C or SIGTERM) the embedded PostgreSQL stops too, its data kept."
    )

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")

    def handle(self, *args, addrport: str, **options):
        # SIGTERM ends the server as Ctrl-C does, so that the database is stopped below.
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        try:
            # No autoreloader: it would serve from a child process that outlives a parent
            # stopped by SIGTERM, and a demo does not edit code.
            call_command("runserver", addrport, use_reloader=False)
        finally:
            if settings.EMBEDDED_DATABASE and embedded_database_stop(settings.VAR_DIR):
                self.stdout.write(
                    f"Embedded PostgreSQL stopped; its data stays in {settings.VAR_DIR}."
                )
