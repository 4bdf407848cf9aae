"""``ratio eval statutes-grid``, ``ratio eval rankings`` and ``ratio eval mapping-report`` on the sample corpus, on
the real node: the grid's shipped row is exactly what the provisions box returns, the rankings file holds exactly
what the default ranks, and the mapping report counts every provision once and draws its sample by seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from opensearchpy import OpenSearch

from lab.evaluate.data import read_queries
from lab.evaluate.statutes_grid import GRID, GridRow, average_precision, leave_one_out, mix, query_parts, shipped
from lab.evaluate.systems import Runner
from ratio.cli import cli
from search.execute import Searcher
from search.provisions.precedents import CITING, WEIGHTS

SAMPLES = Path(__file__).resolve().parents[3] / "samples" / "aila-2019"
QUERIES = read_queries(SAMPLES / "Query_doc.txt")[:3]
DEPTH = 50


@pytest.fixture(scope="module")
def searcher(client: OpenSearch, aliases: dict[str, str], encoder) -> Searcher:
    return Searcher(client, aliases, encoder)


def _base(settings, aliases: dict[str, str]) -> list[str]:
    return ["--url", settings.url, "--prefix", aliases["chunks"].removesuffix("-chunks")]


@pytest.mark.parametrize("text", [QUERIES[0].text, QUERIES[1].text, "dowry death section 304B IPC"])
def test_the_grids_shipped_row_ranks_what_the_box_returns(searcher: Searcher, text: str) -> None:
    """Parts asked once and mixed here with the shipped weights give the box's own order, for pasted fact patterns
    (the precedents vote) and a typed query naming a provision (its own words, the named provision first)."""
    parts = query_parts(searcher, text, DEPTH)
    box = [hit.provision_id for hit in searcher.provisions_for(text, DEPTH)]
    assert box, "the sample corpus lists provisions for each of these queries"
    assert mix(parts, WEIGHTS, CITING, DEPTH) == box
    assert bool(parts.citations) == (text != "dowry death section 304B IPC")  # only a pasted text has precedents


def test_statutes_grid_command_scores_every_mix(opensearch_settings, aliases, searcher: Searcher,
                                                tmp_path: Path) -> None:
    queries = tmp_path / "queries.txt"
    queries.write_text("".join(f"{q.qid}||{q.text}\n" for q in QUERIES), encoding="utf-8")
    boxes = {q.qid: [h.provision_id for h in searcher.provisions_for(q.text, DEPTH)] for q in QUERIES}
    relevant = {qid: {ids[1], ids[4]} for qid, ids in boxes.items()}  # any provisions: the grid's arithmetic is checked
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{qid} Q0 {p} {int(p in relevant[qid])}\n" for qid, ids in boxes.items() for p in ids),
                     encoding="utf-8")
    result = CliRunner().invoke(cli, [*_base(opensearch_settings, aliases), "eval", "statutes-grid", "--queries",
                                      str(queries), "--qrels", str(qrels), "--depth", str(DEPTH), "--out",
                                      str(tmp_path / "grid")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    grid = json.loads((tmp_path / "grid" / "grid.json").read_text())
    rows = grid["rows"]
    sizes = [len(v) for v in GRID.values()]
    assert len(rows) == sizes[0] * sizes[1] * sizes[2] * sizes[3] - sizes[3]  # every mix but all weights zero
    assert [r["map"] for r in rows] == sorted((r["map"] for r in rows), reverse=True)
    mine = [r for r in rows if r["shipped"]]
    assert len(mine) == 1 and (mine[0]["direct"], mine[0]["passages"], mine[0]["citations"],
                               mine[0]["citing"]) == shipped()
    expected = sum(average_precision(boxes[q.qid], relevant[q.qid]) for q in QUERIES) / len(QUERIES)
    assert mine[0]["map"] == pytest.approx(expected, abs=1e-6)
    assert grid["queries"] == [q.qid for q in QUERIES]
    assert "shipped" in (tmp_path / "grid" / "grid.md").read_text()


def test_rankings_command_writes_what_the_default_ranks(opensearch_settings, aliases, searcher: Searcher,
                                                        tmp_path: Path) -> None:
    rows = [{"qid": "t1", "text": QUERIES[0].text, "split": "tuning"},
            {"qid": "r1", "text": "dying declaration", "split": "reported"},
            {"qid": "t2", "text": "criminal breach of trust", "split": "tuning"}]
    queries = tmp_path / "queries.jsonl"
    queries.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / "run.json"
    result = CliRunner().invoke(cli, [*_base(opensearch_settings, aliases), "eval", "rankings", str(queries),
                                      "--split", "tuning", "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rankings = json.loads(out.read_text())
    runner = Runner(searcher)
    assert rankings == {row["qid"]: runner.rank("default", row["text"]) for row in rows if row["split"] == "tuning"}
    assert all(rankings.values())
    refused = CliRunner().invoke(cli, [*_base(opensearch_settings, aliases), "eval", "rankings", str(queries),
                                       "--config", "no_such_config", "--out", str(tmp_path / "x.json")])
    assert refused.exit_code != 0 and "no_such_config" in refused.output and not (tmp_path / "x.json").exists()


def test_mapping_report_counts_every_provision_and_samples_by_seed(opensearch_settings, aliases, client,
                                                                   tmp_path: Path) -> None:
    def report(seed: int, name: str) -> str:
        result = CliRunner().invoke(cli, [*_base(opensearch_settings, aliases), "eval", "mapping-report", "--seed",
                                          str(seed), "--sample", "3", "--out", str(tmp_path / name)],
                                    catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return (tmp_path / name).read_text()

    first, again = report(26, "a.md"), report(26, "b.md")
    assert first.split("\n", 3)[3] == again.split("\n", 3)[3]  # the same seed, the same report (the command differs)
    total = client.count(index=aliases["provisions"])["count"]
    assert f"| all | {total} |" in first
    counted = [int(line.split("|")[2]) for line in first.split("| status | provisions |")[1].split("| all |")[0]
               .splitlines() if line.startswith("| ") and not line.startswith("|---")]
    assert sum(counted) == total


def test_leave_one_out_chooses_on_the_other_queries_only() -> None:
    """Query 0 alone favours row a; the other two favour b. Held out, query 0 gets b (chosen on queries 1 and 2)
    and scores b's 0.0 there; queries 1 and 2 each get the row best on the rest."""
    a = GridRow(1.0, 0.0, 0.0, 50, 0.6, (1.0, 0.4, 0.4))
    b = GridRow(0.0, 1.0, 0.0, 50, 0.6, (0.0, 0.9, 0.9))
    mean, chosen = leave_one_out([a, b])
    assert chosen[0] is b and chosen[1] is a and chosen[2] is a  # without query 1: a 1.4 against b 0.9
    assert mean == pytest.approx((0.0 + 0.4 + 0.4) / 3)
    with pytest.raises(ValueError, match="two queries"):
        leave_one_out([GridRow(1.0, 0.0, 0.0, 50, 0.5, (0.5,))])
