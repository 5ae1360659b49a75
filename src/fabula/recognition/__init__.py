"""Character description recognition (GANDALF: Carlsson, Sahlgren, Olsson and Cuba Gyllensten, MRQA 2021): which of 10 characters a description
fits (Desc2Name), or which of 10 descriptions fits a character (Name2Desc), over a whole book.

>>> questions = load_questions("data/recognize/questions.jsonl")          # doctest: +SKIP
>>> shelf = BookShelf()                                                   # doctest: +SKIP
>>> method = get_method("evidence")                                       # doctest: +SKIP
>>> q = questions[0]; method.predict(q, shelf.index(q.book)).choice == q.answer   # doctest: +SKIP

Methods (`method_names`): the paper's baselines ``bow-tfidf`` and ``query-only`` (a language model's
log-likelihood, no book); fabula's ``best-passage-tfidf``, ``bm25``, ``dense``, ``evidence`` (all passages about
each character, pronouns included), ``query-cues``, ``llm``, ``llm-loglik``.
"""

from fabula.recognition._books import BookShelf, map_question
from fabula.recognition._gender import description_gender, name_gender
from fabula.recognition._index import BookIndex
from fabula.recognition._llm_methods import read_choice, supporting_passages
from fabula.recognition._make import candidate_names, sibling_character_list
from fabula.recognition._methods import (
    METHODS,
    RENAMED,
    Prediction,
    Recognizer,
    get_method,
    llm_method_names,
    method_names,
    register_method,
)
from fabula.recognition._questions import (
    DIRECTIONS,
    Direction,
    Pair,
    Question,
    load_pairs,
    load_questions,
    make_questions,
    write_questions,
)

__all__ = [
    "DIRECTIONS",
    "METHODS",
    "RENAMED",
    "BookIndex",
    "BookShelf",
    "Direction",
    "Pair",
    "Prediction",
    "Question",
    "Recognizer",
    "candidate_names",
    "description_gender",
    "get_method",
    "llm_method_names",
    "load_pairs",
    "load_questions",
    "make_questions",
    "map_question",
    "method_names",
    "name_gender",
    "read_choice",
    "register_method",
    "sibling_character_list",
    "supporting_passages",
    "write_questions",
]
