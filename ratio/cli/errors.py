"""How a command fails: one line for people, ``{"error": {"code", "message"}}`` for machines, never a traceback
for a mistake a user can fix.

:class:`RatioGroup` (the ``ratio`` group's class) turns Ratio's errors (:mod:`ratio.errors`), OpenSearch's
(a missing index, a node that is down, refused credentials) and the model loaders' into :class:`CommandError`,
and an error caused by a missing extra into one line with exit status 2 (:mod:`ratio.cli.extras`).
Under ``--json`` (:func:`ratio.cli.options.json_option` notes it in the context's shared ``meta``) every error,
click's own included, is printed as the REST API prints it, on stdout, with a non-zero exit. What is left, an
exception nobody expected, is a bug and keeps its traceback.
"""

from __future__ import annotations

from typing import Any

import click

from ratio.cli.command_error import JSON_KEY, CommandError

__all__ = ["JSON_KEY", "CommandError", "RatioGroup", "as_ratio_error"]

def as_ratio_error(exc: BaseException) -> Any:
    """``exc`` as a Ratio error (``code`` and ``message``) when it is one a user can act on, else None."""
    from opensearchpy.exceptions import OpenSearchException, TransportError

    from ratio.errors import RatioError, from_opensearch

    if isinstance(exc, RatioError):
        return exc
    if isinstance(exc, OpenSearchException):
        translated = from_opensearch(exc)
        if translated is not None:
            return translated
        if isinstance(exc, TransportError) and isinstance(exc.status_code, int):
            return RatioError(f"OpenSearch refused the request ({exc.status_code} {exc.error})",
                              code="opensearch_error", status=502)
        return None
    from backends.encoders import ModelError
    from backends.llm import LLMError
    from search.ranking.model import RankerModelError

    if isinstance(exc, ModelError | LLMError | RankerModelError):
        return RatioError(str(exc), code="model_error")
    return None


def _missing_extra(exc: BaseException, ctx: click.Context, args: list[str]) -> CommandError | None:
    """``exc`` as one line with exit status 2 when a missing extra caused it (:mod:`ratio.cli.extras`)."""
    from ratio.cli.extras import as_missing_extra

    return as_missing_extra(exc, _asked(ctx, args), bool(ctx.meta.get(JSON_KEY)))


def _asked(ctx: click.Context, args: list[str]) -> str | None:
    """The command words of ``args`` (``eval roles``), as far as they name loaded commands."""
    words: list[str] = []
    command: click.Command = ctx.command
    for arg in args:
        if not isinstance(command, click.Group) or arg.startswith("-"):
            break
        words.append(arg)
        if arg not in command.commands:  # one that failed to load
            break
        command = command.commands[arg]
    return " ".join(words) or None


class RatioGroup(click.Group):
    """A click group whose commands fail in one line (see the module docstring)."""

    def invoke(self, ctx: click.Context) -> Any:
        # noted now too: a bad value parsed before --json would otherwise be reported as text
        args = [*getattr(ctx, "_protected_args", ()), *ctx.args]  # click empties both as it resolves the command
        if "--json" in args:
            ctx.meta[JSON_KEY] = True
        try:
            return super().invoke(ctx)
        except (CommandError, click.exceptions.Exit):  # Exit: --help and --version, done (nothing to translate)
            raise
        except click.ClickException as exc:
            missing = _missing_extra(exc, ctx, args)
            if missing is not None:
                raise missing from exc
            if ctx.meta.get(JSON_KEY):
                code = "usage_error" if isinstance(exc, click.UsageError) else "error"
                raise CommandError(exc.format_message(), code, True, exc.exit_code) from exc
            raise
        except Exception as exc:
            missing = _missing_extra(exc, ctx, args)
            if missing is not None:
                raise missing from exc
            error = as_ratio_error(exc)
            if error is None:
                raise
            raise CommandError(str(error.message or error), error.code, bool(ctx.meta.get(JSON_KEY))) from exc
