"""Distributed Text Services (DTS 1.0) in the reading room, under /dts/.

- ``/dts/``: the entry point (the three endpoints' URI templates);
- ``/dts/collection?id=…``: the corpus (``academie``) → one collection per edition
  (``academie/aduj``) → one resource per edition (``aduj``: its TEI document);
- ``/dts/navigation?resource=aduj&ref=whist&down=1``: the citation tree of a resource;
- ``/dts/document?resource=aduj&ref=whist.13``: its TEI, whole or a unit or a range of
  units (in a ``dts:wrapper``), as ``application/tei+xml``.

A resource is the TEI document ``academie export tei`` writes for the edition
(``pipeline.publish.tei``), built from the database served; its citation trees are the
ones its header declares (``refsDecl``), evaluated on it: the default one cites the
database's citations without the edition (resource ``aduj`` + ref ``whist.13`` =
``aduj:whist.13``), the one named ``pages`` the printed pages. The navigation and the
document endpoints read the same document, so a unit the navigation lists is always a
document the document endpoint serves.

JSON answers are JSON-LD (``application/ld+json``) with the specification's context;
errors are what the specification asks (400 for a missing resource or contradictory
parameters, 404 for what does not exist), answered as the reading room's JSON errors.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from urllib.parse import quote

from datasette import Response
from lxml import etree

from ..publish.tei import (DTS_NS, LICENCE_URL, MEDIA_TYPE, PAGES_TREE, TEI_NS, Unit, citation_trees_json,
                           cite_units, plain_copy)
from . import downloads

CONTEXT = "https://dtsapi.org/context/v1.0.json"
VERSION = "1.0"
ROOT = "academie"
LD_JSON = "application/ld+json; charset=utf-8"
TEI_CONTENT_TYPE = f"{MEDIA_TYPE}; charset=utf-8"


class DtsError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


# -- the resources -----------------------------------------------------------------------------------

@dataclass
class Resource:
    id: str
    title: str
    source: str | None
    chapters: int
    plain: etree._ElementTree  # the TEI document without its namespace, as its XPaths read it
    trees: dict[str | None, list[Unit]]
    citation_trees: list[dict]
    passages: set[str]  # the citations of the edition
    games: dict[str, str]  # slug → name

    def units(self, tree: str | None) -> list[Unit]:
        if tree not in self.trees:
            raise DtsError(404, f"the resource {self.id} has no citation tree {tree!r}; its trees: "
                                + ", ".join(t or "(the default)" for t in self.trees))
        return self.trees[tree]


async def editions(datasette) -> list[dict]:
    from ..publish.tei import editions as listed

    return await downloads.cached(datasette, "dts:editions", listed)


async def resource(datasette, rid: str) -> Resource:
    found = [e for e in await editions(datasette) if e["id"] == rid]
    if not found:
        raise DtsError(404, f"no resource {rid!r}: the resources are the editions "
                            + ", ".join(e["id"] for e in await editions(datasette)))
    key = downloads._key(datasette, f"dts:{rid}")
    if key not in downloads._cache:
        data = await downloads.tei_document(datasette, rid)
        plain = plain_copy(etree.fromstring(data).getroottree())
        trees = {None: cite_units(plain), PAGES_TREE: cite_units(plain, PAGES_TREE)}

        def facts(conn):
            passages = {r[0] for r in conn.execute(
                "SELECT p.citation FROM passages p JOIN chapters c ON c.id = p.chapter_id WHERE c.edition_id = ?",
                (rid,))}
            chapters = conn.execute("SELECT count(*) FROM chapters WHERE edition_id = ?", (rid,)).fetchone()[0]
            return passages, chapters, dict(conn.execute("SELECT slug, name FROM games").fetchall())

        passages, chapters, games = await datasette.get_database().execute_fn(facts)
        e = found[0]
        downloads._cache[key] = Resource(rid, e["title"], e["source"], chapters, plain, trees,
                                         citation_trees_json(plain), passages, games)
    return downloads._cache[key]


# -- JSON objects --------------------------------------------------------------------------------------

def _base(datasette) -> str:
    from . import base_url

    return base_url(datasette)


def _q(value: str) -> str:
    return quote(value, safe="")


def _collection_template(base: str, ident: str | None = None) -> str:
    return f"{base}/dts/collection{{?id,page,nav}}" if ident is None else \
        f"{base}/dts/collection?id={_q(ident)}{{&page,nav}}"


def _french(text: str) -> list[dict]:
    return [{"lang": "fr", "value": text}]


def _root_object(datasette, base: str, count: int) -> dict:
    title = (datasette.metadata("title") or "Académie")
    return {"@id": ROOT, "@type": "Collection", "title": title,
            "description": "The editions of the Académie: OCR'd chapters of 18th–19th-century French game treatises, "
                           "cleaned, structured and citable; one collection per edition.",
            "totalParents": 0, "totalChildren": count, "collection": _collection_template(base)}


def _edition_object(base: str, e: dict) -> dict:
    ident = f"{ROOT}/{e['id']}"
    out = {"@id": ident, "@type": "Collection", "title": e["title"], "totalParents": 1, "totalChildren": 1,
           "collection": _collection_template(base, ident), "dublinCore": {"title": _french(e["title"])}}
    if e.get("source"):
        out["description"] = e["source"]
    return out


def _resource_object(base: str, r: Resource) -> dict:
    rid = _q(r.id)
    out = {"@id": r.id, "@type": "Resource", "title": r.title, "totalParents": 1, "totalChildren": 0,
           "collection": f"{base}/dts/collection?id={rid}{{&page,nav}}",
           "navigation": f"{base}/dts/navigation?resource={rid}{{&ref,start,end,down,tree,page}}",
           "document": f"{base}/dts/document?resource={rid}{{&ref,start,end,tree,mediaType}}",
           "download": f"{base}/download/tei/{rid}.xml", "mediaTypes": [MEDIA_TYPE],
           "citationTrees": r.citation_trees,
           "dublinCore": {"title": _french(r.title), "language": ["fr"], "license": LICENCE_URL,
                          "format": MEDIA_TYPE}}
    if r.source:
        out["description"] = f"TEI P5 document of the edition ({r.chapters} chapter{'s' if r.chapters != 1 else ''}): " \
                             f"{r.source}"
    return out


def _unit_object(base: str, r: Resource, u: Unit) -> dict:
    from ..segment.citations import citation_path

    out = {"identifier": u.identifier, "@type": "CitableUnit", "level": u.level, "parent": u.parent,
           "citeType": u.cite_type}
    citation = f"{r.id}:{u.identifier}"
    if u.cite_type != "page" and citation in r.passages:
        out["@id"] = base + citation_path(citation)
    if u.cite_type == "game" and u.identifier in r.games:
        out["dublinCore"] = {"title": _french(r.games[u.identifier])}
    return out


def _ld(data: dict, status: int = 200) -> Response:
    return Response(json.dumps(data, ensure_ascii=False, indent=2), status=status, content_type=LD_JSON)


def _top(data: dict) -> dict:
    return {"@context": CONTEXT, "dtsVersion": VERSION, **data}


def _url(datasette, request) -> str:
    return _base(datasette) + request.path + (f"?{request.query_string}" if request.query_string else "")


# -- parameters -------------------------------------------------------------------------------------

def _arg(request, name: str) -> str | None:
    """A query parameter; an empty one counts as absent."""
    value = request.args.get(name)
    return value if value else None


def _int(request, name: str, low: int) -> int | None:
    value = _arg(request, name)
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        raise DtsError(400, f"{name} must be a whole number, not {value!r}") from None
    if number < low:
        raise DtsError(400, f"{name} must be {low} or more, not {number}")
    return number


def _page(request) -> None:
    """Nothing is paginated: page 1 is the only page."""
    page = _int(request, "page", 1)
    if page is not None and page > 1:
        raise DtsError(404, f"no page {page}: the members are given whole, on page 1")


def _refs(request) -> tuple[str | None, str | None, str | None]:
    ref, start, end = _arg(request, "ref"), _arg(request, "start"), _arg(request, "end")
    if ref is not None and (start is not None or end is not None):
        raise DtsError(400, "ref cannot be given with start or end")
    if (start is None) != (end is None):
        raise DtsError(400, "start and end go together: give both, or ref")
    return ref, start, end


async def _resource_arg(datasette, request) -> Resource:
    rid = _arg(request, "resource")
    if rid is None:
        raise DtsError(400, "no resource given: resource=<an edition's id>, e.g. resource=aduj")
    return await resource(datasette, rid)


def _unit(units: list[Unit], ref: str, r: Resource, tree: str | None) -> int:
    for k, u in enumerate(units):
        if u.identifier == ref:
            return k
    raise DtsError(404, f"no unit {ref!r} in the {'default' if tree is None else repr(tree)} citation tree of {r.id}")


def _subtree_end(units: list[Unit], k: int) -> int:
    """Index after the last descendant of units[k] (units are in pre-order)."""
    j = k + 1
    while j < len(units) and units[j].level > units[k].level:
        j += 1
    return j


def _range(units: list[Unit], r: Resource, tree: str | None, start: str, end: str) -> tuple[int, int]:
    a, b = _unit(units, start, r, tree), _unit(units, end, r, tree)
    if a > b:
        raise DtsError(400, f"start {start!r} comes after end {end!r} in the document")
    return a, b


def _error(e: DtsError) -> Response:
    return Response.json({"ok": False, "error": str(e), "status": e.status}, status=e.status)


def _answers(handler):
    async def view(datasette, request):
        try:
            return await handler(datasette, request)
        except DtsError as e:
            return _error(e)

    view.__name__ = handler.__name__
    return view


# -- the endpoints ----------------------------------------------------------------------------------

@_answers
async def entry(datasette, request):
    base = _base(datasette)
    return _ld(_top({
        "@id": f"{base}/dts/", "@type": "EntryPoint",
        "collection": f"{base}/dts/collection{{?id,page,nav}}",
        "navigation": f"{base}/dts/navigation{{?resource,ref,start,end,down,tree,page}}",
        "document": f"{base}/dts/document{{?resource,ref,start,end,tree,mediaType}}",
    }))


@_answers
async def collection(datasette, request):
    base = _base(datasette)
    ident = _arg(request, "id") or ROOT
    nav = _arg(request, "nav") or "children"
    if nav not in ("children", "parents"):
        raise DtsError(400, f"nav is children or parents, not {nav!r}")
    _page(request)
    found = await editions(datasette)
    root = _root_object(datasette, base, len(found))
    if ident == ROOT:
        members = [_edition_object(base, e) for e in found] if nav == "children" else []
        return _ld(_top({**root, "member": members}))
    for e in found:
        if ident == f"{ROOT}/{e['id']}":
            r = await resource(datasette, e["id"])
            members = [_resource_object(base, r)] if nav == "children" else [root]
            return _ld(_top({**_edition_object(base, e), "member": members}))
    if ident in {e["id"] for e in found}:
        r = await resource(datasette, ident)
        out = _resource_object(base, r)
        if nav == "parents":
            out["member"] = [_edition_object(base, next(e for e in found if e["id"] == ident))]
        return _ld(_top(out))
    raise DtsError(404, f"no collection or resource {ident!r}: the corpus is {ROOT!r}, its editions "
                        + ", ".join(f"{ROOT}/{e['id']}" for e in found) + ", their resources "
                        + ", ".join(e["id"] for e in found))


@_answers
async def navigation(datasette, request):
    base = _base(datasette)
    r = await _resource_arg(datasette, request)
    ref, start, end = _refs(request)
    down = _int(request, "down", -1)
    tree = _arg(request, "tree")
    _page(request)
    units = r.units(tree)
    if ref is None and start is None and down is None:
        raise DtsError(400, "say what to navigate: ref, start and end, or down (down=1: the top of the tree)")
    if down == 0 and ref is None:
        raise DtsError(400, "down=0 asks for the siblings of a ref: give ref")
    out = {"@type": "Navigation", "@id": _url(datasette, request), "resource": _resource_object(base, r)}

    def within(u: Unit, depth: int) -> bool:
        return down == -1 or u.level <= depth + down

    if ref is not None:
        k = _unit(units, ref, r, tree)
        out["ref"] = _unit_object(base, r, units[k])
        if down == 0:
            members = [u for u in units if u.parent == units[k].parent]
        elif down is not None:
            members = [u for u in units[k : _subtree_end(units, k)] if within(u, units[k].level)]
    elif start is not None:
        a, b = _range(units, r, tree, start, end)
        out["start"], out["end"] = _unit_object(base, r, units[a]), _unit_object(base, r, units[b])
        if down is not None:
            deepest = max(units[a].level, units[b].level)
            members = [u for u in units[a : _subtree_end(units, b)] if within(u, deepest)]
    else:
        members = [u for u in units if within(u, 0)]
    if down is not None:
        out["member"] = [_unit_object(base, r, u) for u in members]
    return _ld(_top(out))


@_answers
async def document(datasette, request):
    base = _base(datasette)
    r = await _resource_arg(datasette, request)
    ref, start, end = _refs(request)
    tree = _arg(request, "tree")
    media = _arg(request, "mediaType")
    units = r.units(tree)
    if media is not None and media != MEDIA_TYPE:
        raise DtsError(404, f"the resource {r.id} is served as {MEDIA_TYPE} only, not {media!r}")
    headers = {"link": f'<{base}/dts/collection?id={_q(r.id)}>; rel="collection"'}
    if ref is None and start is None:
        return Response(await downloads.tei_document(datasette, r.id), content_type=TEI_CONTENT_TYPE,
                        headers=headers)
    if ref is not None:
        k = _unit(units, ref, r, tree)
        parts = _unit_content(r, units[k])
    else:
        a, b = _range(units, r, tree, start, end)
        parts = _range_content(r, units[a], units[b])
    return Response(_wrapped(r, parts), content_type=TEI_CONTENT_TYPE, headers=headers)


# -- TEI fragments ---------------------------------------------------------------------------------

_MILESTONES = {"pb", "lb", "cb", "milestone"}


def _body(r: Resource):
    return r.plain.getroot().find("text").find("body")


def _order(r: Resource) -> dict:
    return {e: k for k, e in enumerate(r.plain.getroot().iter())}


def _milestone_end(r: Resource, el) -> tuple[object | None, object]:
    """Where a milestone's unit ends: the next milestone of its kind in its chapter's div,
    or the end of that div."""
    chapter = next(a for a in el.iterancestors() if a.getparent() is not None and a.getparent().tag == "body")
    following = [e for e in chapter.iter(el.tag) if e is not el]
    order = _order(r)
    later = [e for e in following if order[e] > order[el]]
    return (later[0] if later else None), chapter


def _unit_content(r: Resource, u: Unit) -> tuple[str, list]:
    el = u.elements[0]
    if el.tag in _MILESTONES and len(el) == 0:
        stop, chapter = _milestone_end(r, el)
        return _slice(_body(r), el, before=stop, within=chapter)
    return "", [copy.deepcopy(e) for e in u.elements]


def _range_content(r: Resource, first: Unit, last: Unit) -> tuple[str, list]:
    a, b = first.elements[0], last.elements[-1]
    if b.tag in _MILESTONES and len(b) == 0:
        stop, chapter = _milestone_end(r, b)
        return _slice(_body(r), a, before=stop, within=chapter)
    return _slice(_body(r), a, through=b)


def _events(container):
    for action, el in etree.iterwalk(container, events=("start", "end")):
        if action == "start":
            yield "start", el
            if el.text:
                yield "text", el.text
        else:
            yield "end", el
            if el is not container and el.tail:
                yield "text", el.tail


def _slice(container, first, through=None, before=None, within=None) -> tuple[str, list]:
    """A copy of what ``container`` holds from the start of ``first`` to the end of
    ``through``, or to the start of ``before``, or to the end of ``within``; the elements
    ``first`` starts inside are copied around it, so the fragment is well formed."""
    events = list(_events(container))
    i = events.index(("start", first))
    if through is not None:
        j = events.index(("end", through)) + 1
    elif before is not None:
        j = events.index(("start", before))
    else:
        j = events.index(("end", within))
    out = etree.Element("fragment")
    stack = [(None, out)]
    for anc in reversed([a for a in first.iterancestors()][: list(first.iterancestors()).index(container)]):
        copied = etree.SubElement(stack[-1][1], anc.tag, dict(anc.attrib))
        stack.append((anc, copied))
    for action, value in events[i:j]:
        if action == "start":
            copied = etree.SubElement(stack[-1][1], value.tag, dict(value.attrib))
            stack.append((value, copied))
        elif action == "text":
            target = stack[-1][1]
            if len(target):
                target[-1].tail = (target[-1].tail or "") + value
            else:
                target.text = (target.text or "") + value
        elif len(stack) > 1 and stack[-1][0] is value:
            stack.pop()
    return out.text or "", list(out)


def _tei(el):
    for e in el.iter():
        if isinstance(e.tag, str) and not e.tag.startswith("{"):
            e.tag = f"{{{TEI_NS}}}{e.tag}"
    return el


def _wrapped(r: Resource, parts: tuple[str, list]) -> bytes:
    """The TEI document of a part: the resource's header, then the part in a dts:wrapper."""
    text, elements = parts
    root = etree.Element(f"{{{TEI_NS}}}TEI", nsmap={None: TEI_NS, "dts": DTS_NS})
    root.append(_tei(copy.deepcopy(r.plain.getroot().find("teiHeader"))))
    body = etree.SubElement(etree.SubElement(root, f"{{{TEI_NS}}}text"), f"{{{TEI_NS}}}body")
    wrapper = etree.SubElement(body, f"{{{DTS_NS}}}wrapper")
    wrapper.text = text
    for e in elements:
        e.tail = e.tail if e is not elements[-1] else None
        wrapper.append(_tei(e))
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n"


ROUTES = [
    (r"^/dts/?$", entry),
    (r"^/dts/collection/?$", collection),
    (r"^/dts/navigation/?$", navigation),
    (r"^/dts/document/?$", document),
]
