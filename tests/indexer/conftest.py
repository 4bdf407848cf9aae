"""Shared fixtures for the indexer tests: the real data folder beside the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
DATA = SHARED / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """``../shared/data`` beside the repository root; the tests need the real corpora, so fail loudly."""
    if not DATA.is_dir():
        pytest.fail(
            f"real test data not found at {DATA}: the indexer tests need the 'shared' folder "
            "(with data/aila-2019, data/fire2017-irled-precedent, data/opennyai-rhetorical-roles) "
            "next to the repository root"
        )
    return DATA


def make_pdf(lines: list[str]) -> bytes:
    """A real one-page PDF whose text layer holds ``lines`` (Helvetica), written by hand with a valid xref.

    Written here rather than with a PDF library so the tests need nothing beyond the runtime dependencies.
    """

    def escape(line: str) -> str:
        return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    content = "BT /F1 11 Tf 72 720 Td 14 TL " + " ".join(f"({escape(x)}) Tj T*" for x in lines) + " ET"
    stream = content.encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref_at = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref_at}\n%%EOF\n".encode()
    return bytes(out)


@pytest.fixture
def pdf_maker():
    """The :func:`make_pdf` builder, as a fixture so that test modules need not import conftest."""
    return make_pdf
