"""``ratio eval roles``: the role labeller against gold roles, on a few real labelled judgments."""

from __future__ import annotations

import json

from click.testing import CliRunner


def test_eval_roles_scores_the_labeller_on_real_labelled_judgments(shared_data, tmp_path) -> None:
    """Two OpenNyAI dev judgments and two Law-AI judgments, copied from the shared data."""
    import shutil

    from ratio.cli import cli

    data = tmp_path / "data"
    (data / "opennyai-rhetorical-roles").mkdir(parents=True)
    dev = json.loads((shared_data / "opennyai-rhetorical-roles" / "dev.json").read_text(encoding="utf-8"))
    (data / "opennyai-rhetorical-roles" / "dev.json").write_text(json.dumps(dev[:2]), encoding="utf-8")
    (data / "law-ai-rhetorical-roles" / "text").mkdir(parents=True)
    for name in ("1953_L_1.txt", "1953_S_23.txt"):
        shutil.copy(shared_data / "law-ai-rhetorical-roles" / "text" / name, data / "law-ai-rhetorical-roles" / "text")
    result = CliRunner().invoke(cli, ["eval", "roles", "--data", str(data), "--out", str(tmp_path / "roles")],
                                env={"RATIO_CACHE": str(tmp_path / "cache")}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "roles" / "roles.json").read_text())
    opennyai, law_ai = report.values()
    assert opennyai["sentences"] == sum(len(d["annotations"][0]["result"]) for d in dev[:2])
    assert 0.3 < opennyai["micro_f1"] <= 1.0 and 0.0 < law_ai["micro_f1"] <= 1.0
    assert "| label | precision | recall | F1 | support |" in (tmp_path / "roles" / "roles.md").read_text()
