#!/usr/bin/env python
import importlib
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "navigator.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        # The settings check the environment as they load; their message names the variable
        # and what to do, which a traceback would only bury.
        importlib.import_module(os.environ["DJANGO_SETTINGS_MODULE"])
    except ImproperlyConfigured as exc:
        sys.exit(f"manage.py: {exc}")
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
