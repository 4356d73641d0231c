"""Plain typed page documents: what a gov.uk page source hands to parsing and ingestion.

Two shapes arrive: the GOV.UK Content API JSON (`details.parts[].body` / `details.body`)
and the page-file shape of the shared corpus (`url`, `parts[].body_html` / `body_text`).
A pydantic model checks each shape, so a malformed page fails with a PageFormatError naming
the field ("details.parts[2].body: missing"); both become one `PageDocument`.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Annotated, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    PlainValidator,
    StringConstraints,
    ValidationError,
)

from knowledge.validation import first_error

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
    captured_on: dt.date | None = None  # the day gov.uk showed it, when a page file says


_HTML_TAG = re.compile(r"<(p|h[1-6]|ul|ol|li|div|table|a|br|strong|section)\b", re.I)


def looks_like_html(body: str) -> bool:
    return bool(_HTML_TAG.search(body[:5000]))


# ---------------------------------------------------------------- field types


def _path_from_root(path: str) -> str:
    if not path.startswith("/") or path.startswith("//"):
        raise ValueError(f"must be a path starting with '/': {path!r}")
    return path.rstrip("/") or "/"


def _govuk_address(url: str) -> str:
    if not url.startswith(GOVUK_ORIGIN + "/"):
        raise ValueError(f"must be a {GOVUK_ORIGIN}/ address: {url!r}")
    return url


def _timestamp(value: object) -> dt.datetime | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise ValueError("must be an ISO timestamp string")
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"is not an ISO timestamp: {value!r}") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def _capture_day(value: object) -> dt.date | None:
    """A page file's `captured_at`: an ISO date, or a timestamp whose day is taken."""
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise ValueError("must be an ISO date or timestamp string")
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        pass
    stamp = _timestamp(value)
    return stamp.date() if stamp else None


def _absent_if_empty(value: object) -> object:
    return value or None


RequiredText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
BasePath = Annotated[RequiredText, AfterValidator(_path_from_root)]
# Optional words (titles, slugs, types): absent, null and empty all read as "".
Text = Annotated[str, BeforeValidator(lambda value: str(value or ""))]
Timestamp = Annotated[dt.datetime | None, PlainValidator(_timestamp)]
CaptureDay = Annotated[dt.date | None, PlainValidator(_capture_day)]


# ---------------------------------------------------------------- Content API shape


class _StepLink(BaseModel):
    text: Text = ""
    href: Text = ""


class _StepContent(BaseModel):
    type: Text = ""
    text: Text = ""
    contents: Annotated[list[_StepLink] | None, BeforeValidator(_absent_if_empty)] = None


class _Step(BaseModel):
    title: Text = ""
    contents: Annotated[list[_StepContent] | None, BeforeValidator(_absent_if_empty)] = None


class _StepByStepNav(BaseModel):
    steps: Annotated[list[_Step] | None, BeforeValidator(_absent_if_empty)] = None


class _ContentApiPart(BaseModel):
    body: str
    title: Text = ""
    slug: Text = ""


class _ContentApiDetails(BaseModel):
    parts: Annotated[list[_ContentApiPart] | None, BeforeValidator(_absent_if_empty)] = None
    step_by_step_nav: _StepByStepNav | None = None
    body: str | None = None


class _ContentApiPage(BaseModel):
    base_path: BasePath
    title: RequiredText
    details: _ContentApiDetails
    document_type: Text = ""
    schema_name: Text = ""
    public_updated_at: Timestamp = None
    description: Text = ""


# ---------------------------------------------------------------- page-file shape


class _PageFilePart(BaseModel):
    body_html: str
    title: Text = ""
    slug: Text = ""


class _PageFile(BaseModel):
    url: Annotated[RequiredText, AfterValidator(_govuk_address)]
    base_path: Annotated[BasePath | None, BeforeValidator(_absent_if_empty)] = None
    title: RequiredText
    parts: Annotated[list[_PageFilePart] | None, BeforeValidator(_absent_if_empty)] = None
    body_html: str | None = None
    body_text: str | None = None
    body_text_format: Text = ""
    part_title: Text = ""
    part_slug: Text = ""
    document_type: Text = ""
    public_updated_at: Timestamp = None
    description: Text = ""
    figures_period: Text = ""
    captured_at: CaptureDay = None


# ---------------------------------------------------------------- documents

Shape = TypeVar("Shape", bound=BaseModel)


def document_from_json(data: object, *, origin: str) -> PageDocument:
    if not isinstance(data, dict):
        raise PageFormatError("page JSON must be an object")
    if "details" in data:
        return _from_content_api(_validated(_ContentApiPage, data), raw=data, origin=origin)
    if "url" in data:
        return _from_page_file(_validated(_PageFile, data), raw=data, origin=origin)
    raise PageFormatError("page JSON has neither 'details' (Content API) nor 'url' (page file)")


def _validated(shape: type[Shape], data: dict) -> Shape:
    try:
        return shape.model_validate(data)
    except ValidationError as error:
        raise PageFormatError(first_error(error)) from None


def _part_url(base_url: str, index: int, slug: str) -> str:
    return base_url if index == 0 or not slug else f"{base_url}/{slug}"


def _from_content_api(page: _ContentApiPage, *, raw: dict, origin: str) -> PageDocument:
    url = GOVUK_ORIGIN + page.base_path
    return PageDocument(
        url=url,
        base_path=page.base_path,
        title=page.title,
        document_type=page.document_type or page.schema_name,
        public_updated_at=page.public_updated_at,
        parts=_content_api_parts(page.details, url=url, title=page.title),
        raw=raw,
        origin=origin,
        description=page.description,
    )


def _content_api_parts(details: _ContentApiDetails, *, url: str, title: str) -> list[PagePart]:
    if details.parts:
        return [
            PagePart(
                title=part.title,
                slug=part.slug,
                url=_part_url(url, index, part.slug),
                body=part.body,
                body_format="html" if looks_like_html(part.body) else "markdown",
            )
            for index, part in enumerate(details.parts)
        ]
    if details.step_by_step_nav is not None:
        return [_step_by_step_part(details.step_by_step_nav, url=url, title=title)]
    if not details.body or not details.body.strip():
        raise PageFormatError("'details' has no 'parts', 'body' or 'step_by_step_nav'")
    fmt = "html" if looks_like_html(details.body) else "markdown"
    return [PagePart(title="", slug="", url=url, body=details.body, body_format=fmt)]


def _step_by_step_part(nav: _StepByStepNav, *, url: str, title: str) -> PagePart:
    """Steps become an ordered HTML list so that a how-to stays one procedure."""
    html = []
    for number, step in enumerate(nav.steps or [], start=1):
        html.append(f"<h2>Step {number}: {step.title}</h2>")
        for content in step.contents or []:
            if content.type == "paragraph":
                html.append(f"<p>{content.text}</p>")
            elif content.type == "list":
                items = "".join(
                    f'<li><a href="{item.href}">{item.text}</a></li>'
                    if item.href
                    else f"<li>{item.text}</li>"
                    for item in content.contents or []
                )
                html.append(f"<ul>{items}</ul>")
    return PagePart(title=title, slug="", url=url, body="\n".join(html), body_format="html")


def _from_page_file(page: _PageFile, *, raw: dict, origin: str) -> PageDocument:
    base_path = page.base_path or page.url[len(GOVUK_ORIGIN) :]
    return PageDocument(
        url=page.url,
        base_path=base_path,
        title=page.title,
        document_type=page.document_type,
        public_updated_at=page.public_updated_at,
        parts=_page_file_parts(page, base_url=GOVUK_ORIGIN + base_path),
        raw=raw,
        origin=origin,
        description=page.description,
        period_hint=page.figures_period,
        captured_on=page.captured_at,
    )


def _page_file_parts(page: _PageFile, *, base_url: str) -> list[PagePart]:
    if page.parts:
        return [
            PagePart(
                part.title, part.slug, _part_url(base_url, index, part.slug), part.body_html, "html"
            )
            for index, part in enumerate(page.parts)
        ]
    if page.body_html and page.body_html.strip():
        return [PagePart("", "", page.url, page.body_html, "html")]
    if page.body_text and page.body_text.strip():
        fmt = "markdown" if page.body_text_format.startswith("markdown") else "text"
        return [PagePart(page.part_title, page.part_slug, page.url, page.body_text, fmt)]
    raise PageFormatError("page file has no 'parts', 'body_html' or 'body_text'")
