"""Run the quotation-attribution authors' own released code on one shared PDNC novel and keep what it
produces as a test fixture (issue 25): chunk texts, quote ids, and the prompts it sends.

The authors' ``process_pdnc_chunks.py`` (marking, 4096/1024 chunking, quote ids) and ``incremental_pred.py``
(``get_first_prompt`` / ``get_incremental_prompt``: per-chunk cleaning, id restart, the prompt text) are
executed as released, from ``../shared/papers/released/quote-attribution-llama3/``, with stand-ins for what
is not here: the PDNC files converted to their input layout (one ``quote_info.csv`` row per sub-quotation,
``charInfo.dict.pkl``, ``chap_info.csv`` with fabula's chapters), a tokenizer that cuts text with
`fabula.llm.approximate_token_spans` (the tokenizer fabula's loopback tests get) behind the Hugging Face
calls the scripts make, and minimal ``pandas``/``tqdm``/``torch``/``transformers`` stand-ins. The model
answers are scripted: every shown id gets a name from the names list by a fixed rule (`scripted_answer`),
which the test's loopback server answers too.

    python scripts/michel_fixture.py Persuasion tests/quotes/data/michel2025_persuasion.json
"""

from __future__ import annotations

import ast
import csv
import hashlib
import io
import json
import os
import pickle
import sys
import tempfile
import types
from pathlib import Path

RELEASED = Path(__file__).resolve().parent.parent / "../shared/papers/released/quote-attribution-llama3"
PDNC = Path(__file__).resolve().parent.parent / "../shared/data/pdnc"


# --- stand-ins for the libraries the released scripts import ----------------------------------------------


class _Row(dict):
    pass


class _Frame:
    def __init__(self, rows: list[dict[str, str]]) -> None:
        self.rows = [_Row(r) for r in rows]

    def __len__(self) -> int:
        return len(self.rows)

    def iterrows(self):
        return enumerate(self.rows)


def _read_csv(path: str, **_: object) -> _Frame:
    """Rows as pandas gives them for these files: integer columns as ints."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return _Frame([{k: int(v) if v.lstrip("-").isdigit() else v for k, v in row.items()} for row in rows])


class _Tokenizer:
    """The Hugging Face calls the scripts make, over `approximate_token_spans` pieces."""

    def __init__(self) -> None:
        self.pieces: dict[int, str] = {}
        self.ids: dict[str, int] = {}

    def _id(self, piece: str) -> int:
        if piece not in self.ids:
            self.ids[piece] = len(self.ids)
            self.pieces[self.ids[piece]] = piece
        return self.ids[piece]

    def encode(
        self, text, return_overflowing_tokens=False, add_special_tokens=False, stride=0, max_length=None, **_
    ):
        from fabula.llm import approximate_token_spans

        ids = [self._id(text[a:b]) for a, b in approximate_token_spans(text)]
        if not return_overflowing_tokens or max_length is None:
            return ids
        windows: list[list[int]] = []
        step = max_length - stride  # tokenizers' Encoding::truncate with a stride
        for start in range(0, len(ids), step):
            stop = min(start + max_length, len(ids))
            windows.append(ids[start:stop])
            if stop == len(ids):
                break
        CHAPTER_CHUNKS.append(len(windows))
        return windows

    def decode(self, ids):
        return "".join(self.pieces[i] for i in ids)

    def batch_decode(self, batch):
        return [self.decode(ids) for ids in batch]

    def apply_chat_template(self, prompts, **_):
        SENT.append(prompts[0]["content"])
        return _Size()


class _Size:
    def size(self, _dim: int) -> int:
        return 0

    def to(self, _device: object) -> _Size:
        return self


SENT: list[str] = []  # the prompts the released code built
CHAPTER_CHUNKS: list[int] = []  # chunks per chapter, in chap_info order


def _install_stand_ins() -> None:
    sys.modules["pandas"] = types.SimpleNamespace(read_csv=_read_csv)  # type: ignore[assignment]
    sys.modules["tqdm"] = types.SimpleNamespace(tqdm=lambda x, **_: x)  # type: ignore[assignment]
    sys.modules["token_hgface"] = types.SimpleNamespace(HGFACE_TOKEN=None)  # type: ignore[assignment]
    tok = _Tokenizer()
    auto = types.SimpleNamespace(from_pretrained=lambda *a, **k: tok)
    sys.modules["transformers"] = types.SimpleNamespace(  # type: ignore[assignment]
        AutoTokenizer=auto, AutoModelForCausalLM=None, BitsAndBytesConfig=None
    )
    sys.modules["torch"] = types.SimpleNamespace(  # type: ignore[assignment]
        device=lambda *_: None, manual_seed=lambda *_: None, no_grad=lambda: lambda f: f
    )
    sys.path.insert(0, str(RELEASED))


# --- PDNC in the authors' input layout ---------------------------------------------------------------


def write_authors_layout(novel_name: str, root: Path) -> list[tuple[int, int]]:
    """The novel under ``root/novel_name`` as process_pdnc_chunks.py reads it; returns fabula's chapters."""
    from fabula.book import load_book

    folder = PDNC / novel_name
    text = (folder / "novel_text.txt").read_text()
    book = load_book(folder / "novel_text.txt")
    chapters = [(c.start, c.end) for c in book.chapters if c.end > c.start]
    out = root / novel_name
    out.mkdir(parents=True)
    (out / "novel.txt").write_text(text)
    name2id, id2parent, id2gender, category = {}, {}, {}, {}
    with open(folder / "character_info.csv", newline="") as f:
        for row in csv.DictReader(f):
            cid = int(row["Character ID"])
            id2parent[cid] = row["Main Name"]
            id2gender[cid] = row["Gender"]
            category[cid] = row["Category"]
            for alias in [row["Main Name"], *ast.literal_eval(row["Aliases"])]:
                name2id[alias] = cid
    with open(out / "charInfo.dict.pkl", "wb") as f:
        id2names: dict[int, set[str]] = {}
        for alias, cid in name2id.items():
            id2names.setdefault(cid, set()).add(alias)
        pickle.dump(
            {"name2id": name2id, "id2parent": id2parent, "id2gender": id2gender, "id2names": id2names}, f
        )
    rows = []
    with open(folder / "quotation_info.csv", newline="") as f:
        for row in csv.DictReader(f):
            for sb, eb in ast.literal_eval(row["quoteByteSpans"]):
                chapter = (
                    max(i for i, (s, _) in enumerate(chapters) if s <= sb) if sb >= chapters[0][0] else 0
                )
                speaker = row["speaker"]
                rows.append(
                    {
                        "qID": row["quoteID"],
                        "qText": text[sb:eb],
                        "qSpan": str((sb, eb)),
                        "qType": row["quoteType"],
                        "startChapID": chapter,
                        "speaker": speaker,
                        "speakerType": category.get(name2id.get(speaker, -1), "minor"),
                        "addressee": row["addressees"],
                    }
                )
    rows.sort(key=lambda r: ast.literal_eval(r["qSpan"]))
    with open(out / "quote_info.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with open(out / "chap_info.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["titleStartByte", "textEndByte"])
        writer.writeheader()
        writer.writerows({"titleStartByte": s, "textEndByte": e} for s, e in chapters)
    return chapters


def _fabula_alias_order(novel_name: str, aliases: dict[str, str]) -> dict[str, str]:
    """The released code lists each character's names in the order of a Python set (arbitrary from run to
    run); put them in fabula's documented order (canonical name, PDNC aliases sorted, honorific-stripped
    ones), after checking that the lines hold exactly the same names."""
    from fabula.datasets import load_pdnc_novel
    from fabula.quotes._michel import alias_table

    novel = load_pdnc_novel(PDNC / novel_name)
    speakers = {q.speaker_id for q in novel.quotes if q.speaker not in ("_group", "_unknowable", "_narr")}
    ours = alias_table(novel.characters, {s for s in speakers if s})
    theirs: dict[str, set[str]] = {}
    for alias, canonical in aliases.items():
        theirs.setdefault(canonical, set()).add(alias)
    mine = {name: {name, *others} for _, name, others in ours.rows}
    assert theirs == mine, (set(theirs) ^ set(mine), [k for k in mine if theirs.get(k) != mine[k]])
    ordered = {}
    for _, name, others in ours.rows:
        for alias in [name, *others]:
            ordered[alias] = name
    return ordered


def scripted_answer(local_ids: list[str], names: list[str]) -> str:
    """The scripted model's answer for a chunk showing ``local_ids``: id n gets names[n % len(names)]."""
    return str({i: names[int(i) % len(names)] for i in local_ids})


def main(novel_name: str, out_path: str, chapter: int) -> None:
    _install_stand_ins()
    import process_pdnc_chunks  # noqa: F401  (the released module, with the stand-ins above)

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "src"
        write_authors_layout(novel_name, root)
        save = Path(tmp) / "out" / "data.json"
        # --predict_all: every quote of a chunk is predicted, so overlapping quotes are asked again (the
        # paper, Appendix A: "All quotes in a chunk need to be predicted"; without it no chunk shares a
        # predicted quote with an earlier one and the incremental prompt is never used)
        sys.argv = [
            "process_pdnc_chunks.py",
            "--source_data",
            str(root),
            "--save_path",
            str(save),
            "--predict_all",
        ]
        source = (RELEASED / "process_pdnc_chunks.py").read_text()
        stdout = sys.stdout
        sys.stdout = io.StringIO()  # the script prints counts
        try:
            exec(compile(source, "process_pdnc_chunks.py", "exec"), {"__name__": "__main__"})
        finally:
            sys.stdout = stdout
        data = json.loads(save.read_text())[novel_name]

    import incremental_pred as ip  # the released module

    tokenizer = sys.modules["transformers"].AutoTokenizer.from_pretrained("")
    data["aliases"] = _fabula_alias_order(novel_name, data["aliases"])
    names = [line.split("=")[0] for line in ip.build_aliases_text(data["aliases"]).split("\n")]
    chunk_chapter = [c for c, n in enumerate(CHAPTER_CHUNKS) for _ in range(n)]
    assert len(chunk_chapter) == len(data["chunks"])
    raw_past: dict[str, str] = {}
    records = []
    for idx, text in enumerate(data["chunks"]):
        to_predict = data["to_predict"][idx]
        if not to_predict:
            continue
        SENT.clear()
        overlap = {k: v for k, v in raw_past.items() if k in to_predict}
        if overlap:
            _, _, _, _, _, inv = ip.get_incremental_prompt(
                data, idx, tokenizer, to_predict, past_preds=overlap
            )
        else:
            _, _, _, _, _, inv = ip.get_first_prompt(data, idx, tokenizer, to_predict)
        prompt = SENT[0]
        answer = scripted_answer(sorted(inv, key=int), names) + "<|eot_id|>"
        stdout, sys.stdout = sys.stdout, io.StringIO()  # parse_answer prints the answer
        try:
            raw_past.update(ip.parse_answer(answer, inv))
        finally:
            sys.stdout = stdout
        if chunk_chapter[idx] == chapter:
            records.append(
                {
                    "chunk": idx,
                    "incremental": bool(overlap),
                    "chunk_sha256": hashlib.sha256(text.encode()).hexdigest(),
                    "chunk_head": text[:80],
                    "chunk_tail": text[-80:],
                    "to_predict": to_predict,
                    "local_ids": {k: v for v, k in inv.items()},
                    "prompt_sha256": hashlib.sha256(prompt.encode()).hexdigest(),
                    "prompt_chars": len(prompt),
                }
            )
    fixture = {
        "provenance": (
            "Made by scripts/michel_fixture.py: the authors' released process_pdnc_chunks.py and "
            "incremental_pred.py run on shared PDNC data with fabula's approximate tokenizer and fabula's "
            f"chapters; the chunks of chapter index {chapter} of {novel_name}."
        ),
        "novel": novel_name,
        "chapter": chapter,
        "names": ip.build_aliases_text(data["aliases"]),
        "chunks": records,
    }
    Path(out_path).write_text(json.dumps(fixture, indent=1) + "\n")
    print(f"{len(records)} chunks of chapter {chapter} written to {out_path}")
    print("chunks per chapter:", CHAPTER_CHUNKS)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 0)
