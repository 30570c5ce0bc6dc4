"""``manage.py settings_table [--write | --check] [--readme PATH]``: the README's configuration
table, generated from the settings schema (``bizmemory/conf.py``).

Without an option it prints the table. ``--write`` puts it into the README between the markers
of ``bizmemory.conf_docs``; ``--check`` exits 1 (CommandError) when the README's table is not the
one the schema makes now (CI runs it through ``tests/test_settings_table.py``).
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from bizmemory.conf_docs import README, readme_with_table, settings_table


class Command(BaseCommand):
    help = "Print the README's configuration table from bizmemory/conf.py (--write updates it, --check verifies it)."
    requires_system_checks = []  # documentation: it must work while a setting is out of its limits

    def add_arguments(self, parser):
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument("--write", action="store_true", help="rewrite the table in the README")
        mode.add_argument("--check", action="store_true", help="exit 1 when the README's table is out of date")
        parser.add_argument("--readme", type=Path, default=README, help="the README to read or write")

    def handle(self, *args, write=False, check=False, readme=README, **options):
        if not (write or check):
            self.stdout.write(settings_table(), ending="")
            return
        text = readme.read_text(encoding="utf-8")
        try:
            current = readme_with_table(text)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if check:
            if current != text:
                raise CommandError(f"{readme}: the configuration table is out of date; run `manage.py settings_table --write`.")
            self.stdout.write(f"{readme}: the configuration table is current.")
            return
        if current != text:
            readme.write_text(current, encoding="utf-8")
            self.stdout.write(f"{readme}: configuration table written.")
        else:
            self.stdout.write(f"{readme}: the configuration table is current.")
