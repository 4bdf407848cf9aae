"""Issue 27, item 5: would a model for pasted fact patterns, with the settings AILA's corpus's fact patterns choose,
rank them better?

The rule written down in docs/evaluation.md ("Not done yet") before any run: each choice of the selection takes
the alternative with the largest gain of at least +0.005 held-out MAP on AILA's corpus's mined fact patterns
(``mined-facts@ratio``) that does not lower the pooled mined fact patterns. Read off the committed single-choice
tables (docs/eval/ranker-selection, -lightgbm, -refit), it takes four: 31 leaves, each tuning query once, the
query group dropped and the anonymised facts queries added. Each gained alone; this probe cross-validates them
together on the selection's folds, the check before the nested run the rule asks for. The figure is in-sample
(the four were chosen on these folds), so it can only overstate the gain. The reported queries are not scored.

    ratio train ranker --corpus ratio=aila-precedents --corpus fast-irled=irled --mined 1000 --out OUT
    .venv/bin/python scripts/facts_settings_probe.py $RATIO_HOME/training/ranker/dataset.npz
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from probe_common import SEED, derived


def main() -> None:
    from lab.training.ranker import cross_validate
    from lab.training.selection import VALIDATE, Configuration, labelled

    chosen = Configuration(leaves=31, tuning_repeat=1, drop_groups=("query",), anonymised="added")
    args, dataset, train, params = derived(__doc__, chosen)
    with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        scores = cross_validate(train, params, folds=5, labelled=labelled, validate=VALIDATE, scored=dataset,
                                drop_groups=chosen.drop_groups, seed=SEED, executor=pool)
    print({k: (v["MAP"], v["nDCG@10"], v["queries"]) for k, v in sorted(scores.items())}, flush=True)


if __name__ == "__main__":
    main()
