"""The one exception a command fails with, in a module of its own so that :mod:`ratio.cli.errors` (which turns
every other error into it) and :mod:`ratio.cli.extras` (which raises it for a missing extra) both import it
without importing each other."""

from __future__ import annotations

import json
from typing import Any

import click

__all__ = ["JSON_KEY", "CommandError"]

JSON_KEY = "ratio.json"  # ctx.meta key: the command asked for JSON


class CommandError(click.ClickException):
    """A failed command, said in one line (or as the API's error JSON)."""

    def __init__(self, message: str, code: str = "error", as_json: bool = False, exit_code: int = 1) -> None:
        super().__init__(message)
        self.code, self.as_json, self.exit_code = code, as_json, exit_code

    def show(self, file: Any = None) -> None:
        if self.as_json:
            click.echo(json.dumps({"error": {"code": self.code, "message": self.format_message()}}, indent=2))
        else:
            click.echo(f"Error: {' '.join(self.format_message().split())}", err=True)
