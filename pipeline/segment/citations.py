"""Citations: a readable, stable name for every passage.

``<edition>:<scope>.<locator>``, where the scope is the game (or, for passages of no
known game, the chapter: 'ch51') and the locator is

- an article's number: ``aduj:whist.13``;
- a numbered section's: ``unknown:treize.s7``;
- a game's heading: the scope alone, ``aduj:trictrac``;
- a passage after an article or numbered section: that anchor and its rank,
  ``aduj:whist.20.1`` (the paragraph that follows article 20);
- otherwise the printed page and the rank on it, ``aduj:tre-sette.p305.3``, or the
  rank in the scope when pages are unknown, ``unknown:ch-x.u4``;
- a footnote: the passage that calls it and the note's number, ``….n1``.

Citations depend only on the text, never on build order or row ids, so they survive
rebuilds. A citation already taken gets '-2', '-3' ….
"""

from __future__ import annotations

from ..records import ChapterInfo, Passage, Segmented


def assign_citations(chapters: list[tuple[ChapterInfo, Segmented]]) -> list[list[str]]:
    """Citations for every passage of every chapter, in the given order."""
    taken: dict[str, int] = {}
    out: list[list[str]] = []
    for info, seg in chapters:
        out.append(chapter_citations(info, seg.passages, taken))
    return out


def chapter_citations(info: ChapterInfo, passages: tuple[Passage, ...], taken: dict[str, int]) -> list[str]:
    """One chapter's citations, the chapters before it having taken those in ``taken``
    (updated): ``assign_citations`` one chapter at a time."""
    cites: list[str] = [""] * len(passages)
    anchor: dict[str, tuple[str, int]] = {}  # scope → (anchor citation, passages since)
    rank: dict[tuple[str, object], int] = {}
    for p in passages:
        scope = f"{info.edition_id}:{p.game or info.key}"
        if p.kind == "footnote":
            continue
        if p.kind == "heading":
            cite = scope
            anchor.pop(scope, None)
        elif p.kind == "article" and p.number is not None:
            cite = f"{scope}.{p.number}"
        elif p.kind == "section" and p.number is not None:
            cite = f"{scope}.s{p.number}"
        else:
            if p.kind == "section":
                anchor.pop(scope, None)
            held = anchor.get(scope)
            if held is not None:
                base, count = held
                anchor[scope] = (base, count + 1)
                cite = f"{base}.{count + 1}"
            else:
                key = (scope, p.page)
                rank[key] = rank.get(key, 0) + 1
                cite = f"{scope}.p{p.page}.{rank[key]}" if p.page is not None else f"{scope}.u{rank[key]}"
            cite = _unique(cite, taken)
            cites[p.seq] = cite
            continue
        cite = _unique(cite, taken)
        cites[p.seq] = cite
        if p.kind in ("article", "section") and p.number is not None:
            anchor[scope] = (cite, 0)
    for p in passages:
        if p.kind != "footnote":
            continue
        scope = f"{info.edition_id}:{p.game or info.key}"
        base = cites[p.note_for] if p.note_for is not None else (
            f"{scope}.p{p.page}" if p.page is not None else scope
        )
        cites[p.seq] = _unique(f"{base}.n{p.note}", taken)
    return cites


def _unique(cite: str, taken: dict[str, int]) -> str:
    """``taken`` maps each citation given to the last suffix tried for it."""
    if cite not in taken:
        taken[cite] = 1
        return cite
    k = taken[cite] + 1
    while f"{cite}-{k}" in taken:
        k += 1
    taken[cite] = k
    taken[f"{cite}-{k}"] = 1
    return f"{cite}-{k}"


def citation_path(citation: str) -> str:
    """The reading room's stable path for a citation: '/cite/aduj:whist.13'."""
    from urllib.parse import quote

    return "/cite/" + quote(citation, safe=":")
