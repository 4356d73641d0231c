"""Plain typed page documents: what a gov.uk page source hands to parsing and ingestion.

Two shapes arrive: the GOV.UK Content API JSON (`details.parts[].body` / `details.body`)
and the page-file shape of the shared corpus (`url`, `parts[].body_html` / `body_text`).
Both become one `PageDocument`.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

GOVUK_ORIGIN = "https://www.gov.uk"


class PageFormatError(ValueError):
    """The page JSON lacks what a page needs; the message names the field."""


@dataclass(frozen=True)
class PagePart:
    title: str
    slug: str
    url: str
    body: str
    body_format: str  # "html" | "markdown" | "text"


@dataclass(frozen=True)
class PageDocument:
    url: str
    base_path: str
    title: str
    document_type: str
    public_updated_at: dt.datetime | None
    parts: list[PagePart]
    raw: dict
    origin: str
    description: str = ""
    period_hint: str = ""
    links: list[str] = field(default_factory=list)


_HTML_TAG = re.compile(r"<(p|h[1-6]|ul|ol|li|div|table|a|br|strong|section)\b", re.I)


def looks_like_html(body: str) -> bool:
    return bool(_HTML_TAG.search(body[:5000]))


def document_from_json(data: object, *, origin: str) -> PageDocument:
    if not isinstance(data, dict):
        raise PageFormatError("page JSON must be an object")
    if "details" in data:
        return _from_content_api(data, origin=origin)
    if "url" in data:
        return _from_page_file(data, origin=origin)
    raise PageFormatError("page JSON has neither 'details' (Content API) nor 'url' (page file)")


def _required_str(data: dict, key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise PageFormatError(f"'{key}' is missing or not a non-empty string")
    return value.strip()


def _base_path(data: dict) -> str:
    base_path = _required_str(data, "base_path")
    if not base_path.startswith("/") or base_path.startswith("//"):
        raise PageFormatError(f"'base_path' must be a path starting with '/': {base_path!r}")
    return base_path.rstrip("/") or "/"


def parse_timestamp(value: object, *, field_name: str) -> dt.datetime | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise PageFormatError(f"'{field_name}' must be an ISO timestamp string")
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise PageFormatError(f"'{field_name}' is not an ISO timestamp: {value!r}") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def _part_url(base_url: str, index: int, slug: str) -> str:
    return base_url if index == 0 or not slug else f"{base_url}/{slug}"


def _from_content_api(data: dict, *, origin: str) -> PageDocument:
    base_path = _base_path(data)
    title = _required_str(data, "title")
    details = data.get("details")
    if not isinstance(details, dict):
        raise PageFormatError("'details' must be an object")
    url = GOVUK_ORIGIN + base_path
    parts = _content_api_parts(details, url=url, title=title)
    return PageDocument(
        url=url,
        base_path=base_path,
        title=title,
        document_type=str(data.get("document_type") or data.get("schema_name") or ""),
        public_updated_at=parse_timestamp(
            data.get("public_updated_at"), field_name="public_updated_at"
        ),
        parts=parts,
        raw=data,
        origin=origin,
        description=str(data.get("description") or ""),
    )


def _content_api_parts(details: dict, *, url: str, title: str) -> list[PagePart]:
    raw_parts = details.get("parts")
    if raw_parts:
        if not isinstance(raw_parts, list):
            raise PageFormatError("'details.parts' must be a list")
        parts = []
        for index, part in enumerate(raw_parts):
            if not isinstance(part, dict) or not isinstance(part.get("body"), str):
                raise PageFormatError(f"'details.parts[{index}]' needs a string 'body'")
            slug = str(part.get("slug") or "")
            body = part["body"]
            parts.append(
                PagePart(
                    title=str(part.get("title") or ""),
                    slug=slug,
                    url=_part_url(url, index, slug),
                    body=body,
                    body_format="html" if looks_like_html(body) else "markdown",
                )
            )
        return parts
    if isinstance(details.get("step_by_step_nav"), dict):
        return [_step_by_step_part(details["step_by_step_nav"], url=url, title=title)]
    body = details.get("body")
    if not isinstance(body, str) or not body.strip():
        raise PageFormatError("'details' has no 'parts', 'body' or 'step_by_step_nav'")
    fmt = "html" if looks_like_html(body) else "markdown"
    return [PagePart(title="", slug="", url=url, body=body, body_format=fmt)]


def _step_by_step_part(nav: dict, *, url: str, title: str) -> PagePart:
    """Steps become an ordered HTML list so that a how-to stays one procedure."""
    html = []
    for number, step in enumerate(nav.get("steps") or [], start=1):
        html.append(f"<h2>Step {number}: {step.get('title', '')}</h2>")
        for content in step.get("contents") or []:
            if content.get("type") == "paragraph":
                html.append(f"<p>{content.get('text', '')}</p>")
            elif content.get("type") == "list":
                items = "".join(
                    f'<li><a href="{item.get("href", "")}">{item.get("text", "")}</a></li>'
                    if item.get("href")
                    else f"<li>{item.get('text', '')}</li>"
                    for item in content.get("contents") or []
                )
                html.append(f"<ul>{items}</ul>")
    return PagePart(title=title, slug="", url=url, body="\n".join(html), body_format="html")


def _from_page_file(data: dict, *, origin: str) -> PageDocument:
    url = _required_str(data, "url")
    if not url.startswith(GOVUK_ORIGIN + "/"):
        raise PageFormatError(f"'url' must be a {GOVUK_ORIGIN}/ address: {url!r}")
    base_path = _base_path(data) if data.get("base_path") else url[len(GOVUK_ORIGIN) :]
    title = _required_str(data, "title")
    base_url = GOVUK_ORIGIN + base_path
    parts = []
    if data.get("parts"):
        if not isinstance(data["parts"], list):
            raise PageFormatError("'parts' must be a list")
        for index, part in enumerate(data["parts"]):
            body = part.get("body_html") if isinstance(part, dict) else None
            if not isinstance(body, str):
                raise PageFormatError(f"'parts[{index}]' needs a string 'body_html'")
            slug = str(part.get("slug") or "")
            parts.append(
                PagePart(
                    str(part.get("title") or ""),
                    slug,
                    _part_url(base_url, index, slug),
                    body,
                    "html",
                )
            )
    elif isinstance(data.get("body_html"), str) and data["body_html"].strip():
        parts.append(PagePart("", "", url, data["body_html"], "html"))
    elif isinstance(data.get("body_text"), str) and data["body_text"].strip():
        fmt = (
            "markdown" if str(data.get("body_text_format") or "").startswith("markdown") else "text"
        )
        parts.append(
            PagePart(
                str(data.get("part_title") or ""),
                str(data.get("part_slug") or ""),
                url,
                data["body_text"],
                fmt,
            )
        )
    else:
        raise PageFormatError("page file has no 'parts', 'body_html' or 'body_text'")
    return PageDocument(
        url=url,
        base_path=base_path,
        title=title,
        document_type=str(data.get("document_type") or ""),
        public_updated_at=parse_timestamp(
            data.get("public_updated_at"), field_name="public_updated_at"
        ),
        parts=parts,
        raw=data,
        origin=origin,
        description=str(data.get("description") or ""),
        period_hint=str(data.get("figures_period") or ""),
    )
