"""A made-up chapter, written for the tests, rendered as plain text and as ALTO: one
file or one file per page, ALTO v2, v3 or v4, a String per word or per line, with or
without SegmOnto zone tags, with hyphenation (HYP, SUBS_CONTENT) and confidences.

``PAGES``: each page's running head (title, number) and its printed lines; a line
opening with two spaces is indented (a paragraph starts there); a line ending with
'-' is a word hyphenated across the line end.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable
from xml.sax.saxutils import quoteattr

NS = {2: "http://www.loc.gov/standards/alto/ns-v2#", 3: "http://www.loc.gov/standards/alto/ns-v3#",
      4: "http://www.loc.gov/standards/alto/ns-v4#"}

PAGES: list[tuple[str, str, list[str]]] = [
    ("MOU", "52", [
        "  MOUCHE (jeu de la).",
        "  On joue ce jeu de trois jusqu'à six per-",
        "sonnes, avec un jeu de cartes entier dont",
        "on ôte les petites cartes.",
        "  Règles du jeu de la Mouche.",
        "  1. Celui qui mêle donne cinq cartes à",
        "chaque joueur, deux fois deux et une fois",
    ]),
    ("MOU", "53", [
        "une, et retourne la carte du dessous.",
        "  2. Celui qui donne mal perd sa donne et",
        "met un jeton au panier.",
        "  3. Chacun peut écarter autant de cartes",
        "qu'il lui plaît, et en reprendre au talon.",
    ]),
    ("MOU", "54", [
        "  4. Celui qui a la mouche, c'est-à-dire cinq",
        "cartes de la même couleur, gagne le coup",
        "sans jouer.",
        "  5. Quand deux joueurs ont la mouche, celle",
        "de la couleur de la retourne l'emporte.",
    ]),
    ("MOU", "55", [
        "  6. Celui qui ne fait aucune levée paye",
        "autant de jetons qu'il y en a au panier.",
        "  7. Celui qui renonce paye la remise et",
        "perd les levées qu'il a faites.",
    ]),
    ("MOU", "56", [
        "  8. On doit forcer et monter sur la carte",
        "jouée quand on le peut.",
        "  9. Celui qui joue avant son tour paye",
        "un jeton à chacun des autres.",
    ]),
    ("MOU", "57", [
        "  10. La levée appartient à la plus haute",
        "carte de la couleur demandée, ou à la",
    ]),
    ("MOU", "58", [
        "plus haute de la couleur de la retourne.",
        "  11. Celui qui se retire du coup ne paye",
        "rien, mais il ne peut plus y rentrer.",
    ]),
    ("MOU", "59", [
        "  12. Le panier se partage entre ceux",
        "qui ont fait chacun une levée au moins.",
        "  13. Une carte tombée à terre pendant",
        "la donne oblige à refaire.",
    ]),
    ("MOU", "60", [
        "  14. Celui qui a pris au talon plus de",
        "cartes qu'il n'en a écarté perd le coup.",
        "  15. On ne peut plus changer d'avis après",
        "avoir dit passe.",
    ]),
    ("MOU", "61", [
        "  16. La partie se joue en autant de tours",
        "qu'on en est convenu d'abord.",
        "  17. Le dernier coup de la partie se joue",
        "avec tous les jetons restés au panier.",
    ]),
    ("MOU", "62", [
        "  18. En cas de dispute, la pluralité des",
        "voix décide.",
    ]),
]


def as_text(pages=PAGES) -> str:
    """The chapter as a plain-text export prints it: a head line on each page, then its lines."""
    out = []
    for title, number, lines in pages:
        out.append(f"{title} {number}")
        out.extend(line.strip() for line in lines)
    return "\n".join(out) + "\n"


def _hyphen_parts(pages):
    """For each line ending in '-', the whole word (its part on this line + the first word of the next)."""
    flat = [(p, i) for p, (_, _, lines) in enumerate(pages) for i in range(len(lines))]
    whole = {}
    for k, (p, i) in enumerate(flat):
        line = pages[p][2][i].strip()
        if line.endswith("-") and k + 1 < len(flat):
            q, j = flat[k + 1]
            nxt = pages[q][2][j].split()[0]
            whole[(p, i)] = line.split()[-1][:-1] + nxt.rstrip(".,;:")
            whole[flat[k + 1]] = whole[(p, i)]
    return whole


def page_xml(pages, page_indices, version: int = 4, words: bool = True, tags: bool = True,
             wc: Callable[[str], float | None] | None = None, cc: Callable[[str], str | None] | None = None,
             namespace: bool = True) -> bytes:
    """An ALTO document with the given pages of ``pages``."""
    whole = _hyphen_parts(pages)
    ns = f' xmlns="{NS[version]}"' if namespace else ""
    out = [f'<?xml version="1.0" encoding="UTF-8"?>\n<alto{ns}>\n<Description><MeasurementUnit>pixel</MeasurementUnit></Description>']
    if tags:
        out.append('<Tags><OtherTag ID="BT1" LABEL="MainZone" DESCRIPTION="block type MainZone"/>'
                   '<OtherTag ID="BT2" LABEL="RunningTitleZone" DESCRIPTION="block type RunningTitleZone"/>'
                   '<OtherTag ID="BT3" LABEL="NumberingZone" DESCRIPTION="block type NumberingZone"/></Tags>')
    out.append("<Layout>")
    for p in page_indices:
        title, number, lines = pages[p]
        out.append(f'<Page ID="p{p}" PHYSICAL_IMG_NR="{p + 1}" WIDTH="1200" HEIGHT="1800">')
        out.append('<PrintSpace HPOS="0" VPOS="0" WIDTH="1200" HEIGHT="1800">')
        if tags:
            out.append(f'<TextBlock ID="p{p}_rt" TAGREFS="BT2"><TextLine ID="p{p}_rt_l" HPOS="500" VPOS="60" HEIGHT="30" WIDTH="100">'
                       f'<String ID="p{p}_rt_w" CONTENT="{title}"/></TextLine></TextBlock>')
            out.append(f'<TextBlock ID="p{p}_n" TAGREFS="BT3"><TextLine ID="p{p}_n_l" HPOS="1000" VPOS="60" HEIGHT="30" WIDTH="60">'
                       f'<String ID="p{p}_n_w" CONTENT="{number}"/></TextLine></TextBlock>')
            out.append(f'<TextBlock ID="p{p}_b" TAGREFS="BT1">')
        else:
            out.append(f'<TextBlock ID="p{p}_b">')
            out.append(f'<TextLine ID="p{p}_head" HPOS="100" VPOS="60" HEIGHT="30" WIDTH="1000">'
                       f'<String ID="p{p}_head_w0" CONTENT="{title}"/><SP/><String ID="p{p}_head_w1" CONTENT="{number}"/></TextLine>')
        for i, line in enumerate(lines):
            indented = line.startswith("  ")
            hpos = 140 if indented else 100
            out.append(f'<TextLine ID="p{p}_l{i}" HPOS="{hpos}" VPOS="{120 + 40 * i}" HEIGHT="30" WIDTH="900">')
            text = line.strip()
            if not words:
                out.append(f'<String ID="p{p}_l{i}_w0" CONTENT={quoteattr(text)}{_conf(text, wc, cc)}/>')
            else:
                tokens = text.split()
                for k, tok in enumerate(tokens):
                    attrs = ""
                    hyphen = k == len(tokens) - 1 and tok.endswith("-") and (p, i) in whole
                    if hyphen:
                        tok = tok[:-1]
                        attrs = f' SUBS_TYPE="HypPart1" SUBS_CONTENT={quoteattr(whole[(p, i)])}'
                    elif k == 0 and (p, i) in whole:
                        attrs = f' SUBS_TYPE="HypPart2" SUBS_CONTENT={quoteattr(whole[(p, i)])}'
                    if k:
                        out.append("<SP/>")
                    out.append(f'<String ID="p{p}_l{i}_w{k}" CONTENT={quoteattr(tok)}{attrs}{_conf(tok, wc, cc)}/>')
                    if hyphen:
                        out.append('<HYP CONTENT="-"/>')
            out.append("</TextLine>")
        out.append("</TextBlock></PrintSpace></Page>")
    out.append("</Layout></alto>\n")
    return "\n".join(out).encode("utf-8")


def _conf(text: str, wc, cc) -> str:
    out = ""
    if wc is not None and wc(text) is not None:
        out += f' WC="{wc(text):.2f}"'
    if cc is not None and cc(text) is not None:
        out += f' CC="{cc(text)}"'
    return out


def write_single(path: Path, pages=PAGES, **kw) -> Path:
    path.write_bytes(page_xml(pages, range(len(pages)), **kw))
    return path


def write_per_page(folder: Path, pages=PAGES, stem: str = "mouche", **kw) -> Path:
    """One file per page, named as Gallica names them: <stem>_f1.xml … <stem>_f11.xml."""
    folder.mkdir(parents=True, exist_ok=True)
    for p in range(len(pages)):
        (folder / f"{stem}_f{p + 1}.xml").write_bytes(page_xml(pages, [p], **kw))
    return folder
