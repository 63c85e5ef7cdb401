"""Every link and repository path that README.md and docs/*.md name must exist: a file that moved
(or a heading renamed) breaks this test, not a reader's click.

Checked: Markdown links to files of the repository (with their #anchors, against the target's
headings as GitHub makes anchors of them) and paths written in backticks that start with one of
the repository's top-level folders. Web links are not fetched (the CI has no network)."""

import re
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOP_FOLDERS = ("amp", "bench", "cmake", "docs", "examples", "harness", "reports", "scripts", "tests", "workloads",
               ".ci")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\s]+)`")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def pages():
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def anchors(page):
    """The anchors GitHub gives the page's headings: lower case, punctuation dropped, spaces as '-'."""
    text = FENCE.sub("", page.read_text())
    found = set()
    for heading in re.findall(r"^#{1,6}\s+(.*)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", "")).replace(" ", "-")
        found.add(slug)
    return found


def broken_links(page):
    text = FENCE.sub("", page.read_text())
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto: not fetched
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading #{anchor} in {file.relative_to(ROOT)}")
    return broken


def unlinked_pages(front_page, manual):
    """The manual's pages that the front page does not link to: a page nobody can find."""
    text = FENCE.sub("", front_page.read_text())
    linked = {(front_page.parent / target.partition("#")[0]).resolve() for target in LINK.findall(text)}
    return sorted(page.name for page in manual if page.resolve() not in linked)


def is_repository_path(text):
    if not text.startswith(tuple(folder + "/" for folder in TOP_FOLDERS)):
        return False
    # Placeholders and patterns name no one file: DIR/, *, <...>, $VAR, {a,b}.
    return not re.search(r"[*<>${}]|\bDIR\b|\.\.\.|[A-Z]{3,}/", text)


def missing_paths(page):
    text = FENCE.sub("", page.read_text())
    missing = []
    for code in CODE.findall(text):
        path = code.rstrip(".,:;)").split(":")[0]  # "file.cpp:123" names the file
        if is_repository_path(path) and not (ROOT / path).exists():
            missing.append(path)
    return missing


class LinksAndPathsTest(unittest.TestCase):
    def test_every_link_resolves(self) -> None:
        for page in pages():
            with self.subTest(page=page.name):
                self.assertEqual(broken_links(page), [])

    def test_every_repository_path_exists(self) -> None:
        for page in pages():
            with self.subTest(page=page.name):
                self.assertEqual(missing_paths(page), [])

    def test_every_page_of_the_manual_is_linked_from_the_readme(self) -> None:
        self.assertEqual(unlinked_pages(ROOT / "README.md", pages()[1:]), [])

    def test_the_checks_catch_what_they_are_for(self) -> None:
        page = ROOT / "tests" / "docs" / "links_test_sample.md"
        self.assertEqual(broken_links(page), ["moved.md: no such file",
                                              "../../README.md#no-such-heading: no heading #no-such-heading in README.md"])
        self.assertEqual(missing_paths(page), ["bench/no_such_file.py"])
        docs = ROOT / "docs"
        self.assertEqual(unlinked_pages(page, [docs / "cli.md", docs / "performance.md", page]),
                         ["links_test_sample.md", "performance.md"])


if __name__ == "__main__":
    sys.exit(unittest.main())
