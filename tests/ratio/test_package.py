"""``import ratio``: every public name resolves, and neither importing it nor reading its names loads a model
library (``import ratio`` alone loads no OpenSearch client either), so the CLI and a caller stay quick."""

from __future__ import annotations

import json
import subprocess
import sys


def test_every_public_name_resolves_without_loading_torch() -> None:
    script = ("import json, sys, ratio\n"
              "bare = sorted(m for m in ('torch', 'opensearchpy', 'sentence_transformers') if m in sys.modules)\n"
              "names = {n: type(getattr(ratio, n)).__name__ for n in ratio.__all__}\n"
              "print(json.dumps({'names': names, 'bare': bare, 'heavy': sorted(m for m in ('torch', "
              "'sentence_transformers', 'transformers') if m in sys.modules)}))")
    out = json.loads(subprocess.run([sys.executable, "-c", script], check=True, capture_output=True,
                                    text=True).stdout)
    assert set(out["names"]) >= {"Client", "RemoteClient", "SearchOptions", "SortOrder", "QueryError"}
    assert out["bare"] == [], f"import ratio loaded {out['bare']}"
    assert out["heavy"] == [], f"ratio's names loaded {out['heavy']}"


def test_sort_orders_are_exported_and_accepted_as_options() -> None:
    import ratio

    assert [order.value for order in ratio.SortOrder] == ["relevance", "newest", "oldest", "cited_by"]
    assert ratio.SearchOptions(sort=ratio.SortOrder.NEWEST).sort == "newest"
