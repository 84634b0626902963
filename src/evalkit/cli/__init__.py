"""The `evalkit` command: typer apps that parse flags, call the library and map outcomes to exit codes."""

from evalkit.cli.app import app, main
