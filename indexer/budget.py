"""The time one judgment may take on its way into the index, checked between steps.

Python cannot interrupt a running regex (or any C call) from another thread, so the budget is not a timer
that stops work: it is checked after each step of loading and of the pipeline, and a judgment found over it
fails alone with the step named ("took more than 30 s in sentence splitting") while the batch goes on. That
is enough because every step is linear in the text (the citation, metadata and sentence rules are written
so, and tested on hostile input): no step can run for hours on a file the size limit lets in, so the check
after it comes. A step that is slow but finishes (a megabyte of dense citations on a busy machine) is caught
at the next check.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

__all__ = ["DEFAULT_JUDGMENT_SECONDS", "JudgmentBudget", "OverBudget"]

DEFAULT_JUDGMENT_SECONDS = 30.0  # a long judgment (300 kB) takes about a second through every step on a CPU


class OverBudget(Exception):
    """A judgment took longer than its budget; the message names the step it was in."""


@dataclass
class JudgmentBudget:
    """Seconds one judgment may take (None: no bound), counted from ``started`` plus time spent elsewhere."""

    seconds: float | None
    started: float = field(default_factory=time.perf_counter)
    spent_elsewhere: float = 0.0  # this judgment's share of steps run for a whole batch

    def elapsed(self) -> float:
        return time.perf_counter() - self.started + self.spent_elsewhere

    def over(self, step: str) -> str | None:
        """Why the judgment is over its budget after ``step`` (None when it is not)."""
        if self.seconds is None or self.elapsed() <= self.seconds:
            return None
        return f"took more than {self.seconds:g} s in {step}"

    def check(self, step: str) -> None:
        """Raise :class:`OverBudget` when the judgment is over its budget after ``step``."""
        reason = self.over(step)
        if reason is not None:
            raise OverBudget(reason)
