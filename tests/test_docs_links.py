"""The front door: README.md fits one page and links every page of docs/; every link in README.md and docs/*.md
resolves (relative paths to files of the checkout, `#anchors` to a heading of the target as GitHub slugs it), and
the README's picture is a committed file."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers import ROOT

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
PAGES = sorted((ROOT / "docs").glob("*.md"))


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation other than - and _ dropped, spaces to -."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    return {_slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.M)}


def _links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)  # not inside code blocks
    return LINK.findall(text)


def test_slugs_as_github_makes_them() -> None:
    assert _slug("What `generated/` holds") == "what-generated-holds"
    assert _slug("Use railfabric in your CI") == "use-railfabric-in-your-ci"


def test_every_link_resolves() -> None:
    broken = []
    checked = 0
    for page in [ROOT / "README.md", *PAGES]:
        for target in _links(page):
            if re.match(r"[a-z]+:", target):
                continue  # an absolute URL: not checked offline
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            checked += 1
            if not dest.is_file() or not dest.is_relative_to(ROOT):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and anchor not in _anchors(dest):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []
    assert checked >= 15  # the README's table alone links 10 pages


def test_the_readme_is_one_page_and_every_doc_is_reached_from_it() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 80
    seen, todo = set(), [ROOT / "README.md"]
    while todo:  # follow the links from the README, page to page
        page = todo.pop()
        for target in _links(page):
            dest = (page.parent / target.partition("#")[0]).resolve()
            if dest.suffix == ".md" and dest.is_file() and dest not in seen:
                seen.add(dest)
                todo.append(dest)
    assert sorted(p.name for p in PAGES if p.resolve() not in seen) == []
    picture = next(t for t in _links(ROOT / "README.md") if t.endswith(".svg"))
    assert (ROOT / picture).is_file()


def test_the_check_bites(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\nsee [a](missing.md) and [b](#title) and [c](#nowhere)\n", encoding="utf-8")
    assert _links(page) == ["missing.md", "#title", "#nowhere"]
    assert _anchors(page) == {"title"}
