"""What a new expert or editor meets on the curation screens, in a real browser: text in the
blue section bars is readable (WCAG AA contrast), every screen link shown opens, and the admin
home's separators never start a line."""

import re

import pytest
from django.urls import reverse

from curation.roles import DOMAIN_EXPERT, EDITOR
from tests.curation.test_changes_screen import changed_page
from tests.e2e.conftest import admin_login
from tests.e2e.test_review_browser import member

pytestmark = pytest.mark.slow

WCAG_AA_NORMAL_TEXT = 4.5
NAV_LINKS = "#curation-screens a, .screen-links a, .review-links a, .tx-tabs a, .jobs-note a"

# Each element in a bar with text of its own: its colour (blended by its alpha and opacity)
# against the nearest background drawn behind it within the bar.
BAR_TEXT_CONTRAST_JS = """
() => {
  const rgba = (css) => {
    const parts = css.match(/[\\d.]+/g).map(Number);
    return parts.length > 3 ? parts : [...parts, 1];
  };
  const channel = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const found = [];
  for (const bar of document.querySelectorAll(".module h2, .module caption")) {
    for (const element of [bar, ...bar.querySelectorAll("*")]) {
      const ownText = [...element.childNodes]
        .filter((node) => node.nodeType === Node.TEXT_NODE)
        .map((node) => node.textContent.trim()).join(" ").trim();
      if (!ownText) continue;
      let background = null, opacity = 1;
      for (let node = element; node; node = node === bar ? null : node.parentElement) {
        const style = getComputedStyle(node);
        opacity *= Number(style.opacity);
        const colour = rgba(style.backgroundColor);
        if (!background && colour[3] > 0) background = colour;
      }
      const [r, g, b, a] = rgba(getComputedStyle(element).color);
      const alpha = a * opacity;
      const text = [r, g, b].map((v, i) => v * alpha + background[i] * (1 - alpha));
      const [light, dark] = [luminance(text), luminance(background)].sort((x, y) => y - x);
      found.push({ text: ownText.slice(0, 60), ratio: (light + 0.05) / (dark + 0.05),
                   barOpaque: background[3] === 1 });
    }
  }
  return found;
}
"""


def test_text_in_the_section_bars_of_changes_and_audit_is_readable(page, transactional_db):
    member(DOMAIN_EXPERT, "expert")
    source, *_ = changed_page()
    page.goto("/curation/changes/")
    admin_login(page, username="expert")
    expect_url(page, r"/curation/changes/$")

    changes_page = reverse("curation:changes-page", args=[source.pk])
    checked = []
    for url in ("/curation/changes/", changes_page, "/curation/audit/", "/curation/audit/results/"):
        assert page.goto(url).status == 200
        texts = page.evaluate(BAR_TEXT_CONTRAST_JS)
        assert texts, url
        checked += [(url, t["text"], round(t["ratio"], 2)) for t in texts]
        assert all(t["barOpaque"] for t in texts), url
        poor = [
            (t["text"], round(t["ratio"], 2)) for t in texts if t["ratio"] < WCAG_AA_NORMAL_TEXT
        ]
        assert not poor, (url, poor)
    # the subtitles, the count and the link of the bars are among the texts checked
    assert any(text.startswith("newest") or text.isdigit() for _, text, _ in checked)
    assert any(text == "estimated precision over every sample" for _, text, _ in checked)


@pytest.mark.parametrize("role", [DOMAIN_EXPERT, EDITOR])
def test_every_screen_link_shown_to_a_role_opens(page, transactional_db, role):
    member(role, "person")
    changed_page()
    page.goto("/admin/")
    admin_login(page, username="person")
    expect_url(page, r"/admin/$")

    screens = _hrefs(page, "#curation-screens a")
    assert screens
    shown: dict[str, str] = {}  # link -> the first screen showing it
    for screen in ["/admin/", *screens]:
        response = page.goto(screen)
        assert response.status == 200, screen
        for href in _hrefs(page, NAV_LINKS):
            shown.setdefault(href, screen)
    refused = {
        href: screen
        for href, screen in shown.items()
        if page.request.get(href, max_redirects=0).status != 200
    }
    assert not refused, f"links a {role} is shown but may not open: {refused}"


def test_the_admin_home_never_starts_a_line_with_a_separator(page, transactional_db):
    member(EDITOR, "editor")
    page.set_viewport_size({"width": 520, "height": 900})  # narrow, so the links wrap
    page.goto("/admin/")
    admin_login(page, username="editor")
    expect_url(page, r"/admin/$")

    separators = page.evaluate(SEPARATORS_JS)
    assert separators, "the admin home's screen links have no separators"
    starting_a_line = [s for s in separators if not s["sameLineAsLink"]]
    assert not starting_a_line, starting_a_line
    rows = page.locator("#curation-screens tr").count()
    lines = page.evaluate(LINK_LINES_JS)
    assert lines > rows, "the links did not wrap at this width, so nothing was tested"


# Each "·" (as text, or drawn by CSS before or after an element) with the link before it: the
# separator is on the link's line when their vertical middles are within half a line.
SEPARATORS_JS = """
() => {
  const screens = document.querySelector("#curation-screens");
  const middle = (rect) => (rect.top + rect.bottom) / 2;
  const links = [...screens.querySelectorAll("a")];
  const follows = (node, a) => a.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING;
  // the last link before `node`, or (`within`) the last before its end
  const linkBefore = (node, within) => links.filter((a) =>
    within && node.contains(a) || (!node.contains(a) && !a.contains(node) && follows(node, a))).pop();
  const found = [];
  const check = (rect, node, within = false) => {
    const link = linkBefore(node, within);
    if (!link) { found.push({ sameLineAsLink: false, where: "before every link" }); return; }
    const rects = [...link.getClientRects()];
    const last = rects[rects.length - 1];
    found.push({ sameLineAsLink: Math.abs(middle(rect) - middle(last)) < last.height / 2,
                 link: link.textContent.trim() });
  };
  const walker = document.createTreeWalker(screens, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.textContent.indexOf("\\u00b7");
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + 1);
    check(range.getBoundingClientRect(), node);
  }
  for (const element of screens.querySelectorAll("*")) {
    for (const pseudo of ["::before", "::after"]) {
      if (!getComputedStyle(element, pseudo).content.includes("\\u00b7")) continue;
      const rects = [...element.getClientRects()];
      const rect = pseudo === "::before" ? rects[0] : rects[rects.length - 1];
      check(rect, element, pseudo === "::after");
    }
  }
  return found;
}
"""

LINK_LINES_JS = """
() => new Set([...document.querySelectorAll("#curation-screens a")]
  .map((a) => Math.round(a.getBoundingClientRect().top))).size
"""


def _hrefs(page, selector: str) -> list[str]:
    hrefs = page.eval_on_selector_all(selector, "links => links.map(a => a.getAttribute('href'))")
    return list(dict.fromkeys(href for href in hrefs if href and href.startswith("/")))


def expect_url(page, pattern: str) -> None:
    """The page the login led to, with its stylesheets applied."""
    from playwright.sync_api import expect

    expect(page).to_have_url(re.compile(pattern))
    page.wait_for_load_state("load")
