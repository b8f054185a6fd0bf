"""A database written by hand for the TEI tests: one chapter whose raw text, passages,
pages, running heads and corrections are set here, so that the TEI the export writes
for them can be compared with what it must be, character for character."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from pipeline.fixes import FIXES, kind_of
from pipeline.publish.write import schema_sql


@dataclass
class Edit:
    find: str  # the raw text replaced (its first occurrence at or after the previous edit)
    after: str
    fix: str
    confidence: float = 1.0


def passage_rows(raw: str, start: int, end: int, edits: list[Edit]) -> tuple[str, list[dict]]:
    """The clean text of raw[start:end] with ``edits`` applied, and its corrections."""
    clean, corrections, pos, out_pos = [], [], start, 0
    for e in edits:
        at = raw.index(e.find, pos, end)
        clean.append(raw[pos:at])
        out_pos += at - pos
        corrections.append({"start": at, "end": at + len(e.find), "before": e.find, "after": e.after, "fix": e.fix,
                            "kind": kind_of(e.fix), "confidence": e.confidence, "clean_start": out_pos,
                            "clean_end": out_pos + len(e.after)})
        clean.append(e.after)
        out_pos += len(e.after)
        pos = at + len(e.find)
    clean.append(raw[pos:end])
    return "".join(clean), corrections


# A chapter of two printed pages: an article whose words are hyphenated at line ends
# (one joined, one kept), across the page break, mended and misread; a line joined to
# the next; a footnote called in the article and printed at the foot of the page, with
# a form feed the OCR left in it.
RAW = ("BOS 41\n"
       "\n"
       "1. Celui qui re-\nnonce paye très-\nvolontiers un ieton (1) à cha-\n\nBOS 42\n\ncun des joueurs\nassis au jeu com-\npofé.\n"
       "\n"
       "(1) La\x0cnote.\n")
ARTICLE_EDITS = [
    Edit("-\n", "", "layout.join_hyphenated"),
    Edit("\n", "", "layout.keep_hyphen"),
    Edit("ieton", "jeton", "clean.non_word", 0.9),
    Edit("-\n\nBOS 42\n\n", "", "layout.page_break+layout.join_hyphenated"),
    Edit("\n", " ", "layout.reflow"),
    Edit("com-\npofé", "composé", "layout.join_hyphenated+clean.long_s", 0.8),
]
ARTICLE_CLEAN = "1. Celui qui renonce paye très-volontiers un jeton (1) à chacun des joueurs assis au jeu composé."

# what the export must write for it (the chapter's div, without the namespace declaration)
ARTICLE_TEI = (
    '<div type="chapter" n="3" corresp="#file.boston"><pb n="41"/><fw type="header">BOS 41</fw>\n\n'
    '<div type="game" n="boston"><div type="article" n="1" xml:id="boston.1"><p>1. Celui qui re'
    '<lb break="no" rend="hyphen"/>nonce paye très-<lb break="no"/>volontiers un <choice><sic>ieton</sic>'
    '<corr resp="#clean.non_word" type="spelling" cert="0.9">jeton</corr></choice> (1)'
    '<note place="foot" n="n1" xml:id="boston.1.n1">(1) La<g type="control" n="U+000C"/>note.</note> à cha'
    '<lb break="no" rend="hyphen"/><lb break="no"/><pb n="42" break="no"/><fw type="header">BOS 42</fw>'
    '<lb break="no"/><lb break="no"/>cun des joueurs<lb/>assis au jeu <choice><sic>com-<lb/>pofé</sic>'
    '<corr resp="#layout.join_hyphenated #clean.long_s" type="spelling" cert="0.8">composé</corr></choice>.</p>'
    '\n\n<anchor type="footnote" corresp="#boston.1.n1"/></div>\n</div></div>'
)


def made_up_db(path: Path) -> Path:
    """The hand-made database: edition 'ndj', chapter 3, game 'boston'."""
    conn = sqlite3.connect(path)
    conn.executescript(schema_sql())
    conn.executemany("INSERT INTO fixes VALUES (?, ?, ?, ?)",
                     [(f.name, f.stage, f.kind, f.explanation) for f in FIXES.values()])
    conn.execute("INSERT INTO editions VALUES ('ndj', 'Nouvelle académie des jeux', 1805, 'written for the tests', 40)")
    conn.execute("INSERT INTO games VALUES ('boston', 'Boston')")
    # its two passages below: the article on page 41, its footnote on page 42
    conn.execute("INSERT INTO chapters (id, edition_id, source_file, number, total, title, sha256, raw_text, encoding, "
                 "edition_source, layout_form, citation_key, note, passages, articles, first_page, last_page) "
                 "VALUES (1, 'ndj', 'boston.txt', 3, 40, 'BOS', ?, ?, 'utf-8', 'manifest', 'wrapped', 'ch3', "
                 "'made up for the tests', 2, 1, 41, 42)", ("0" * 64, RAW))
    second = RAW.index("BOS 42")
    conn.executemany("INSERT INTO pages (id, chapter_id, seq, number, number_raw, number_status, running_head, "
                     "head_game, raw_start, head_end) VALUES (?, 1, ?, ?, ?, 'read', ?, 'boston', ?, ?)",
                     [(1, 0, 41, "41", "BOS 41", 0, 6), (2, 1, 42, "42", "BOS 42", second, second + 6)])
    conn.executemany("INSERT INTO furniture (chapter_id, kind, raw_start, raw_end, text) VALUES (1, 'running_head', ?, ?, ?)",
                     [(0, 6, "BOS 41"), (second, second + 6, "BOS 42")])
    a_start, a_end = RAW.index("1. Celui"), RAW.index("pofé.") + len("pofé.")
    n_start = RAW.index("(1) La")
    n_end = n_start + len("(1) La\x0cnote.")
    article, corrections = passage_rows(RAW, a_start, a_end, ARTICLE_EDITS)
    assert article == ARTICLE_CLEAN, article
    note, _ = passage_rows(RAW, n_start, n_end, [])
    rows = [(1, "ndj:boston.1", 0, "article", 1, "1", 41, RAW[a_start:a_end], article, a_start, a_end, None),
            (2, "ndj:boston.1.n1", 1, "footnote", None, None, 42, RAW[n_start:n_end], note, n_start, n_end,
             "ndj:boston.1")]
    conn.executemany("INSERT INTO passages (id, citation, chapter_id, seq, game, kind, number, number_raw, page, "
                     "text_raw, text_clean, text_search, raw_start, raw_end, note_for) "
                     "VALUES (?, ?, 1, ?, 'boston', ?, ?, ?, ?, ?, ?, '', ?, ?, ?)", rows)
    conn.executemany('INSERT INTO corrections (passage_id, start, "end", before, after, fix, kind, confidence, '
                     "clean_start, clean_end) VALUES (1, :start, :end, :before, :after, :fix, :kind, :confidence, "
                     ":clean_start, :clean_end)", corrections)
    conn.commit()
    conn.close()
    return path


# A chapter for the real build: a footnote no text calls, printed in the middle of an
# article that runs on to the next page, and one printed far from its call, after the
# paragraph that follows the next article.
NOTES = """BOS 41

BOSTON (jeu du).

Règles du jeu de Boston.

1. Celui qui donne mal paye une fiche à chacun des joueurs (1), et celui qui renonce paye le double; si le joueur

(2) Une note que rien n'appelle.

BOS 42

qui a la main ne joue pas, il perd sa mise.

2. Le joueur qui renonce paye le double & perd la partie.

Après l'article deux vient un paragraphe qui l'explique.

(1) La note de l'article premier, imprimée loin de son appel.

3. On ne peut plus revenir sur la donne lorsque la première carte est jouée.
"""
