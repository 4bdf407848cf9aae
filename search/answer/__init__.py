"""Grounded question answering over the indices: :func:`Answerer.ask` (judgments) and
:func:`ask_provisions` (provision-guided, for statute questions)."""

from search.answer.checks import Claim, ClaimCheck, Scores, Thresholds
from search.answer.context import ContextPassage
from search.answer.loop import NOTICE, Answer, Answerer, AskOptions, Attempt
from search.answer.statutes import MODES, SelectedProvision, ask, ask_provisions, select_provisions

__all__ = ["MODES", "NOTICE", "Answer", "Answerer", "AskOptions", "Attempt", "Claim", "ClaimCheck", "ContextPassage",
           "Scores", "SelectedProvision", "Thresholds", "ask", "ask_provisions", "select_provisions"]
