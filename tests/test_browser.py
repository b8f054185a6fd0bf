"""The reading room in a real browser: Playwright drives Debian's Chromium
(/usr/bin/chromium, installed by `make browser`; no browser is ever downloaded) against
a real `academie serve` (conftest's ``server``).

Each step leaves a screenshot in build/screenshots/ for a person to look at.
"""

from __future__ import annotations

from urllib.parse import unquote

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.helpers import SHOTS, chromium

# a browser, and the real `academie serve` it reads from
pytestmark = pytest.mark.slow

NARROW = {"width": 400, "height": 800}


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture()
def page(browser: Browser, server):
    context = browser.new_context(base_url=server[0], viewport={"width": 1100, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server[0])
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    yield p
    context.close()
    assert errors == [], errors


def shot(page: Page, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_home_to_whist_13_in_two_clicks_then_copy_its_citation(page: Page):
    page.goto("/")
    expect(page.locator("h1")).to_have_text("Académie universelle des jeux")
    shot(page, "01-home")
    page.get_by_role("link", name="Whist", exact=True).click()
    expect(page.locator("h1")).to_have_text("Whist")
    shot(page, "02-game-whist")
    page.get_by_role("link", name="aduj:whist.13", exact=True).click()
    expect(page.locator("h1#citation")).to_have_text("aduj:whist.13")
    assert unquote(page.url).endswith("/cite/aduj:whist.13")
    expect(page.locator("#clean-text")).to_contain_text("Personne ne doit prendre les cartes")
    expect(page.locator("#raw-text")).to_contain_text("Personne ne doit prendre les caries")
    shot(page, "03-cite-whist-13")

    page.locator("#copy-citation").click()
    expect(page.locator("#copy-citation")).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == "Académie universelle des jeux, Whist, art. 13, p. 407"


def test_search_renonce_and_open_a_hit(page: Page):
    page.goto("/")
    page.get_by_label("Search the treatise").fill("renonce")
    page.get_by_label("Search the treatise").press("Enter")
    expect(page.locator("h1")).to_have_text("Search")
    hits = page.locator("ol.results li")
    expect(hits.first).to_be_visible()
    assert hits.count() > 1
    expect(hits.first.locator("mark").first).to_have_text("renonce", ignore_case=True)
    shot(page, "04-search-renonce")
    first = hits.first.locator("a.hit")
    citation = first.inner_text()
    first.click()
    expect(page.locator("h1#citation")).to_have_text(citation)
    expect(page.locator("#clean-text")).to_contain_text("renonce", ignore_case=True)
    shot(page, "05-search-hit")


def test_chapter_switches_to_raw_ocr_and_back(page: Page):
    page.goto("/cite/aduj:whist.13")
    page.get_by_role("link", name="in its chapter").click()
    expect(page.locator("#reading-text")).to_be_visible()
    expect(page.locator("#whist\\.13")).to_be_in_viewport()
    shot(page, "06-chapter-clean")
    page.locator("#show-raw").click()
    expect(page.locator("#raw-text")).to_contain_text("i3. Personne ne doit prendre les caries")
    expect(page.locator("#reading-text")).to_have_count(0)
    shot(page, "07-chapter-raw")
    page.locator("#show-clean").click()
    expect(page.locator("#reading-text")).to_be_visible()
    expect(page.locator("#raw-text")).to_have_count(0)


def test_corrections_are_reachable_by_keyboard_and_show_the_ocr(page: Page):
    page.goto("/cite/aduj:whist.13")
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('mark.fix')"):
            break
    else:
        pytest.fail("no correction reached with the Tab key")
    raw = page.evaluate("document.activeElement.dataset.raw")
    shown = page.evaluate("getComputedStyle(document.activeElement, '::after').content")
    assert raw and f"[{raw}]" in shown
    shot(page, "08-correction-focused")


@pytest.mark.parametrize("path", ["/", "/cite/aduj:whist.13", "/search?q=renonce", "/game/hombre", "/chapter/1"])
def test_pages_stay_readable_400_px_wide(browser: Browser, server, path):
    context = browser.new_context(base_url=server[0], viewport=NARROW)
    page = context.new_page()
    page.goto(path)
    # nothing wider than the screen: no sideways scrolling to read
    assert page.evaluate("document.documentElement.scrollWidth") <= NARROW["width"]
    size = page.evaluate("parseFloat(getComputedStyle(document.querySelector('.reading')).fontSize)")
    assert size >= 14
    shot(page, "09-narrow-" + ("".join(c if c.isalnum() else "-" for c in path).strip("-") or "home"))
    context.close()


def test_reading_works_without_javascript(browser: Browser, server):
    context = browser.new_context(base_url=server[0], java_script_enabled=False, viewport=NARROW)
    page = context.new_page()
    page.goto("/")
    page.get_by_role("link", name="Hombre", exact=True).click()
    page.get_by_role("link", name="aduj:hombre.73", exact=True).click()
    expect(page.locator("h1#citation")).to_have_text("aduj:hombre.73")
    expect(page.locator("#citation-text")).to_have_value(
        "Académie universelle des jeux, Hombre, art. 73, p. 163")
    page.get_by_role("link", name="in its chapter").click()
    page.locator("#show-raw").click()
    expect(page.locator("#raw-text")).to_be_visible()
    page.goto("/")
    page.get_by_label("Search the treatise").fill("matadors")
    page.get_by_role("button", name="Search").click()
    expect(page.locator("ol.results li").first).to_be_visible()
    shot(page, "10-no-javascript-search")
    context.close()


def test_planted_script_is_shown_not_run(browser: Browser, planted_server):
    context = browser.new_context(base_url=planted_server)
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    for path in ("/chapter/1", "/chapter/1?raw=1", "/cite/unknown:boston.1", "/search?q=planted"):
        page.goto(path)
        page.wait_for_load_state("load")
    page.goto("/chapter/1")
    expect(page.locator("#reading-text")).to_contain_text('<script>alert("planted")</script>')
    shot(page, "11-planted-markup")
    assert dialogs == []
    context.close()
