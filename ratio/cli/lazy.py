"""A click group that imports a command's module only when that command is asked for, so ``ratio --help``,
``ratio --version`` and ``ratio COMMAND --help`` do not pay for every other command's imports.

The group holds a table of :class:`LazyCommand` entries: where each command lives (``"module:attribute"``) and
its summary, the sentence its ``--help`` row shows. The group's own ``--help`` lists the table without importing
anything; a command is imported the first time it is looked up (to run it or to show its ``--help``) and kept.
``tests/ratio/test_cli_startup.py`` checks every entry against the real command, so the table cannot drift.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from gettext import gettext as _
from typing import Any

import click

__all__ = ["LazyCommand", "LazyGroup"]


def _attribute(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class LazyCommand:
    """A command not imported yet: ``target`` is ``"module:attribute"``; ``summary`` is what click's
    ``get_short_help_str`` gives for it without a length limit (the first sentence of its help); ``subcommands``
    are ``"module:attribute"`` commands added to it (a group) when it is loaded."""

    target: str
    summary: str
    subcommands: tuple[str, ...] = ()

    def load(self) -> click.Command:
        command = _attribute(self.target)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.target} is not a click command")
        if self.subcommands:
            if not isinstance(command, click.Group):
                raise TypeError(f"{self.target} takes subcommands but is not a click group")
            for target in self.subcommands:
                command.add_command(_attribute(target))
        return command

    def short_help(self, limit: int) -> str:
        """The row ``--help`` shows for the command, shortened to ``limit`` as click shortens the real one."""
        return click.Command(None, help=self.summary).get_short_help_str(limit)


class LazyGroup(click.Group):
    """A click group whose commands may also come from a table of :class:`LazyCommand` (``lazy=``)."""

    def __init__(self, *args: Any, lazy: Mapping[str, LazyCommand] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, LazyCommand] = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            self.add_command(self.lazy[cmd_name].load(), cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """As click's, but a command not loaded yet is listed from its table entry instead of being imported."""
        rows: list[tuple[str, click.Command | LazyCommand]] = []
        for name in self.list_commands(ctx):
            command = self.commands.get(name)
            if command is None:
                rows.append((name, self.lazy[name]))
            elif not command.hidden:
                rows.append((name, command))
        if not rows:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in rows)
        listed = [(name, entry.short_help(limit) if isinstance(entry, LazyCommand) else entry.get_short_help_str(limit))
                  for name, entry in rows]
        with formatter.section(_("Commands")):
            formatter.write_dl(listed)
