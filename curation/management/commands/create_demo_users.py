from django.core.management.base import BaseCommand, CommandError

from curation.services.users import DemoModeRequired, demo_users_create


class Command(BaseCommand):
    help = "Create or reset the demo accounts (admin, expert, editor) and print their logins."

    def handle(self, *args, **options):
        try:
            logins = demo_users_create()
        except DemoModeRequired as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write("Demo logins (new passwords on every run):")
        for login in logins:
            self.stdout.write(f"  {login.username:<8} {login.password:<14} {login.role}")
