"""Walking and resolving the ``ratio`` command tree with click's own parser (shared by the CLI tests)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import click


def command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every command and group under ``group`` (not ``group`` itself), depth first, with its path of names."""
    ctx = click.Context(group, info_name=" ".join(("ratio", *prefix)))
    for name in group.list_commands(ctx):
        command, path = group.get_command(ctx, name), (*prefix, name)
        assert command is not None, f"{' '.join(path)} is listed but cannot be loaded"
        yield path, command
        if isinstance(command, click.Group):
            yield from command_paths(command, path)


def _parse(command: click.Command, name: str, args: Sequence[str],
           parent: click.Context | None) -> tuple[click.Context, list[str]]:
    """Split ``args`` with the command's own click parser: an option the command does not have, or one left
    without its value, raises ``click.UsageError``; values are not converted and callbacks do not run (so
    ``--dimension N`` passes), and what is left over (a subcommand and its arguments) is returned."""
    ctx = click.Context(command, info_name=name, parent=parent)
    _, rest, _ = command.make_parser(ctx).parse_args(list(args))
    return ctx, rest


def resolve(root: click.Group, args: Sequence[str]) -> tuple[str, ...]:
    """The command path ``ratio ARGS`` names; raises ``click.UsageError`` for an unknown command or option."""
    ctx, rest = _parse(root, "ratio", args, None)
    command: click.Command = root
    path: list[str] = []
    while isinstance(command, click.Group) and rest:
        name = rest[0]
        sub = command.get_command(ctx, name)
        if sub is None:
            raise click.UsageError(f"no command {' '.join([*path, name])!r}")
        path.append(name)
        ctx, rest = _parse(sub, name, rest[1:], ctx)
        command = sub
    return tuple(path)
