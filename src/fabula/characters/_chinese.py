"""Chinese character discovery: person names from jieba's part-of-speech tags (``nr``), completed
by the book's own usage.

jieba (already a dependency for Chinese tokens) tags person names ``nr``; names seen at least twice
become characters. On top of the tagger:

- ``老`` + surname (老周) is a name though jieba tags it a time word: a 老X token whose X is a surname
  of the book's own names or a common surname, seen ``MIN_COUNT`` times.
- A two-character name the text almost always continues with one more character is cut short by
  jieba's dictionary (赵云 of 赵云飞): the three-character form the book writes is the name.
- A surname with a title (周伯, 周师傅) and 老 + surname (老周) are one person when they are the only
  such forms of that surname, no full name bears it, and they never share a sentence as two people do.
- A given name that ends a unique longer name (宝玉 in 贾宝玉) joins it.
- Gender from the first 他/她 after each mention (before the next name), and from gendered titles
  (周伯 is a man, 林婶 a woman).

Pronouns are not resolved for Chinese.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from fabula.book import Book, Character, Mention
from fabula.characters._choice import clear_winner

MIN_COUNT = 2
#: a name followed by the same character this share of the time is cut short (赵云 + 飞)
CONTINUATION_SHARE = 0.8
#: forms that share this many sentences are two people (周伯 talking with 周师傅)
CONFLICT_MIN = 2
PRONOUN_WINDOW = 40  # characters after a mention searched for 他/她
#: pronoun votes: at least this many, and this many times the other gender's
MIN_GENDER_VOTES, GENDER_LEAD = 2, 2.0
TITLE_GENDER_CONFIDENCE = 0.9  # 周伯 is a man whatever the pronouns nearby say
_COMMON_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁"
    "任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦方白邹孟熊秦邱江尹薛段雷侯龙史陶黎贺顾毛郝龚邵钱严武戴莫孔汤"
)
#: titles after a surname, with the gender they imply (周伯, 王婶, 李师傅)
_TITLES: dict[str, str] = {
    **dict.fromkeys(
        [
            "师傅",
            "先生",
            "大爷",
            "大叔",
            "大哥",
            "老爷",
            "爷爷",
            "伯伯",
            "叔叔",
            "伯",
            "叔",
            "爷",
            "哥",
            "公",
        ],
        "male",
    ),
    **dict.fromkeys(
        [
            "太太",
            "小姐",
            "大妈",
            "大娘",
            "大姐",
            "奶奶",
            "阿姨",
            "婶婶",
            "婆婆",
            "婶",
            "姨",
            "嫂",
            "姐",
            "娘",
            "婆",
        ],
        "female",
    ),
    **dict.fromkeys(["老师", "老板", "医生", "同志"], "unknown"),
}
#: characters that follow a name as words of their own, never as the end of it (赵云飞说, not 赵云飞说)
_NOT_NAME_ENDINGS = frozenset(
    "说道笑问答叫的了是在和与也就都又把被对向跟看走来去到还却才只便已这那一不有没给让"
)
_SENTENCE_END = re.compile(r"[。！？!?\n]")


def discover_chinese(book: Book) -> tuple[list[Character], list[Mention]]:
    """Characters and name mentions of a Chinese book."""
    import jieba
    import jieba.posseg as pseg

    jieba.setLogLevel(60)  # no start-up chatter on stderr
    counts: Counter[str] = Counter()
    lao: Counter[str] = Counter()  # 老X tokens, whatever jieba's tag
    text = book.text
    for start, end in book.paragraphs.pairs():
        for pair in pseg.cut(text[start:end]):
            if pair.flag == "nr" and 2 <= len(pair.word) <= 4:
                counts[pair.word] += 1
            elif len(pair.word) == 2 and pair.word[0] == "老":
                lao[pair.word] += 1
    counts.update(_old_surname_names(lao, counts))
    counts = _complete_names(text, counts)
    names = [n for n, c in counts.items() if c >= MIN_COUNT]
    names.sort(key=lambda n: (-len(n), -counts[n]))
    owner: dict[str, str] = {}
    for name in names:
        longer = [o for o in owner if len(o) > len(name) and o.endswith(name) and owner[o] == o]
        owner[name] = longer[0] if len(longer) == 1 and _surname_form(name) is None else name
    _join_surname_forms(text, names, owner)
    characters: list[Character] = []
    ids: dict[str, str] = {}
    for name in names:
        if owner[name] == name:
            ids[name] = f"D{len(characters) + 1}"
            characters.append(Character(id=ids[name], name=name, source="predicted"))
    mentions: list[Mention] = []
    if owner:
        pattern = re.compile("|".join(re.escape(n) for n in sorted(owner, key=len, reverse=True)))
        for m in pattern.finditer(text, book.body.start, book.body.end):
            mentions.append(Mention(m.start(), m.end(), ids[owner[m.group()]], "name", 0.8))
    _set_genders(text, characters, mentions, owner)
    return characters, mentions


def _old_surname_names(lao: Counter[str], counts: Counter[str]) -> Counter[str]:
    """The 老X tokens whose X is a surname (of the book's own names, or a common one): 老周, not 老家."""
    surnames = _COMMON_SURNAMES | {n[0] for n in counts if len(n) in (2, 3) and counts[n] >= MIN_COUNT}
    return Counter({word: n for word, n in lao.items() if word[1] in surnames})


def _complete_names(text: str, counts: Counter[str]) -> Counter[str]:
    """Two-character names the text almost always continues with the same character are three-character
    names cut by jieba's dictionary (赵云 of 赵云飞): counted under the longer form instead."""
    out: Counter[str] = Counter()
    for name, n in counts.items():
        if len(name) != 2 or name[0] == "老":
            out[name] += n
            continue
        following = Counter(m.group(1) for m in re.finditer(re.escape(name) + r"(\w)", text))
        total = text.count(name)
        best = clear_winner(following.items(), at_least=MIN_COUNT, factor=1.0)
        if (
            best is not None
            and best not in _NOT_NAME_ENDINGS
            and following[best] >= CONTINUATION_SHARE * total
        ):
            out[name + best] += n
        else:
            out[name] += n
    return out


def _surname_form(name: str) -> str | None:
    """The surname of 老周 / 周伯 / 周师傅 (a surname with 老 or a title), else None."""
    if len(name) == 2 and name[0] == "老":
        return name[1]
    for title in _TITLES:
        if len(name) == 1 + len(title) and name.endswith(title):
            return name[0]
    return None


def _join_surname_forms(text: str, names: list[str], owner: dict[str, str]) -> None:
    """老周, 周伯 and 周师傅 are one person when they are the only forms of surname 周 (no full name
    bears it) and no two of them share sentences as two people do."""
    by_surname: dict[str, list[str]] = defaultdict(list)
    for name in names:
        surname = _surname_form(name)
        if surname is not None and owner[name] == name:
            by_surname[surname].append(name)
    sentences = [s for s in _SENTENCE_END.split(text) if s]
    for surname, forms in by_surname.items():
        if len(forms) < 2:
            continue
        full = [n for n in names if n[0] == surname and _surname_form(n) is None and len(n) >= 2]
        if full:
            continue  # 周伯 may be the father of 周云
        together = sum(1 for s in sentences if sum(1 for f in forms if f in s) >= 2)
        if together >= CONFLICT_MIN:
            continue
        head = max(forms, key=lambda f: (text.count(f), f))
        for form in forms:
            owner[form] = head


def _set_genders(
    text: str, characters: list[Character], mentions: list[Mention], owner: dict[str, str]
) -> None:
    """Gender from a gendered title in the character's names (周伯, 林婶), else the first 他/她 after
    each mention before the next name: at least two votes, twice the other gender's."""
    by_id = {c.id: c for c in characters}
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    for i, m in enumerate(mentions):
        limit = min(m.end + PRONOUN_WINDOW, mentions[i + 1].start if i + 1 < len(mentions) else len(text))
        window = text[m.end : limit]
        he, she = window.find("他"), window.find("她")
        if he >= 0 and (she < 0 or he < she):
            votes[m.character_id or ""]["male"] += 1
        elif she >= 0:
            votes[m.character_id or ""]["female"] += 1
    titled: dict[str, Counter[str]] = defaultdict(Counter)
    for form, head in owner.items():
        for title, gender in _TITLES.items():
            if gender != "unknown" and _surname_form(form) is not None and form.endswith(title):
                titled[head][gender] += 1
    for cid, character in by_id.items():
        by_title = clear_winner(titled[character.name].items(), at_least=1, factor=GENDER_LEAD)
        if by_title is not None:
            character.gender = by_title  # type: ignore[assignment]
            character.gender_confidence = TITLE_GENDER_CONFIDENCE
            continue
        voted = clear_winner(votes[cid].items(), at_least=MIN_GENDER_VOTES, factor=GENDER_LEAD)
        if voted is not None:
            share = votes[cid][voted] / sum(votes[cid].values())
            character.gender = voted  # type: ignore[assignment]
            # few votes, lower confidence (five or more count fully)
            character.gender_confidence = round(share * min(1.0, votes[cid][voted] / 5), 3)
