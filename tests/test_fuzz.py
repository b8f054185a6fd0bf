"""An HTTP fuzzer over every route of the reading room and of Datasette's own pages,
in-process: whatever the path, the query string and the method, the answer is never a
5xx, and never shows a traceback."""

from __future__ import annotations

from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

# an exploration of many requests: in `make test`, not in the fast tier
pytestmark = pytest.mark.slow

PREFIXES = ["/", "/index.json", "/chapter/", "/chapter/1", "/chapter/1.json", "/cite/", "/cite/aduj:whist.13",
            "/cite/aduj:whist.13.json", "/game/", "/game/whist", "/game/whist.json", "/search", "/search.json", "/review", "/review.json",
            "/academie", "/academie.json", "/academie/passages", "/academie/passages.json", "/academie/passages/1",
            "/academie/corrections/", "/academie/article", "/academie/search.json", "/academie/corrections_of",
            "/-/", "/-/versions.json", "/-/metadata.json", "/x", "/../", "/%2e%2e/",
            "/dts/", "/dts/collection", "/dts/navigation?resource=aduj", "/dts/document?resource=aduj",
            "/dts/navigation?resource=aduj&tree=pages", "/download/tei/", "/download/academie_rules.zip"]
KEYS = ["q", "game", "kind", "edition", "raw", "_sort", "_sort_desc", "_size", "_facet", "_where", "_col", "_nocol",
        "_next", "_shape", "_labels", "_search", "citation", "page", "sql", "_json", "_trace",
        "id", "nav", "resource", "ref", "start", "end", "down", "tree", "mediaType"]
TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)
NASTY = st.sampled_from(['"', '"""', "\x00", "'", "../../etc/passwd", "(select 1)", "%", "%00", "%ff", "99999999999999999999999",
                         "-1", "1e309", "<script>", "aduj%3Awhist.13", " OR 1=1", "*", "NEAR(", "\\", "é" * 50])
PARTS = st.one_of(TEXT, NASTY)
METHODS = st.sampled_from(["GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "TRACE", "OPTIONS", "PATCH"])


@st.composite
def requests(draw):
    path = draw(st.sampled_from(PREFIXES)) + quote(draw(PARTS), safe="/:%.@")
    if draw(st.booleans()):
        path = path.rstrip("/") + draw(st.sampled_from(["", ".json", "/", ".json?_shape=array"]))
    query = draw(st.lists(st.tuples(st.sampled_from(KEYS), PARTS), max_size=4))
    if query:
        path += ("&" if "?" in path else "?") + urlencode(query)
    return draw(METHODS), path


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(req=requests())
def test_no_request_gets_a_5xx_or_a_traceback(room, req):
    method, path = req
    r = room.request(method, path)
    assert r.status_code < 500, (method, path, r.status_code, r.text[:300])
    assert "Traceback (most recent call last)" not in r.text
    if method not in ("GET", "HEAD"):
        assert r.status_code == 405, (method, path, r.status_code)
