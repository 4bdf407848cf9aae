"""Shared pieces of the answer tests (API and browser): the web app over the sample corpus with the small LLM,
and a real uvicorn server for it.

The LLM is the packaged 0.5B model behind the answer cache (a file in the session's temporary folder), so a
question asked by one test and again by the next (the JSON route, then the stream, then the page) is generated
once per session: generations are the slowest part of the suite.
"""

from __future__ import annotations

from pathlib import Path

from tests.waiting import serve  # the answer tests' server: ``serve(app)`` yields its base URL

__all__ = ["GROUNDED_QUESTION", "QUICK", "UNANSWERABLE", "answering_app", "serve"]

GROUNDED_QUESTION = "What must be shown for possession of a fire-arm under the Arms Act?"
UNANSWERABLE = "What is the goods and services tax rate on cryptocurrency mining rigs?"
QUICK = {"rounds": 1}  # one round: the fewest generations (and what the page's tests ask, so they hit the cache)


def answering_app(url: str, aliases: dict[str, str], encoder, llm, cache: Path, **options):
    """The app on the session's sample indices with ``llm`` (answers cached in ``cache``)."""
    from backends.llm import CachedLLM
    from ratio.client import Client
    from ratio.web import create_app

    prefix = aliases["judgments"].removesuffix("-judgments")
    client = Client(url, prefix=prefix, encoder=encoder, llm=CachedLLM(llm, cache))
    return create_app(client, **options)
