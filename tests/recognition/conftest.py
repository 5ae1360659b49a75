"""A hand-built little novel whose four characters each have plain facts, for the recognition tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabula.book import Character

STORY = """A SMALL TOWN

CHAPTER I.

Mr. Thornton owned the great cotton mill by the river. He walked to the mill every morning before dawn.

Margaret Hale loved to read poetry in the garden. She read poems all afternoon under the old pear tree.

Dr. Pemble was the physician of the town. He visited the sick children with his black bag and his medicines.

Mrs. Ashby baked bread and cakes in her shop on the corner. She sold her warm loaves to everyone.

CHAPTER II.

Mr. Thornton counted the looms of the cotton mill. The mill was loud, and he was proud of it.

Margaret Hale found a book of poetry in the library. She copied her favourite poems into a notebook.

Dr. Pemble gave the sick baker's boy a bitter medicine, and he stayed by the bed all night.

Mrs. Ashby kneaded the dough at four o'clock. Her bread and her cakes were the best in the town.

CHAPTER III.

"Good morning," said Margaret Hale to Mrs. Ashby, and Mr. Thornton bowed to Dr. Pemble in the street.

Everyone in the town knew Darcy's hat, though nobody had seen Darcy for years. Hope was a word the vicar
loved, for he lived in hope; the long road was quiet; the Darcys had gone away.
"""

CAST = [
    Character("thornton", "Mr. Thornton", {"Thornton": 0, "John Thornton": 0}, gender="male"),
    Character("margaret", "Margaret Hale", {"Margaret": 0, "Miss Hale": 0}, gender="female"),
    Character("pemble", "Dr. Pemble", {"Pemble": 0}, gender="male"),
    Character("ashby", "Mrs. Ashby", {"Ashby": 0}, gender="female"),
]


@pytest.fixture()
def story_path(tmp_path: Path) -> Path:
    path = tmp_path / "story.txt"
    path.write_text(STORY, encoding="utf-8")
    return path


@pytest.fixture()
def cast() -> list[Character]:
    return [Character(c.id, c.name, dict(c.aliases), c.gender) for c in CAST]
