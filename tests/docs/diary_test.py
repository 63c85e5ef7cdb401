"""The repository speaks of ampbench, not of how it was made: README.md, docs/*.md and the comments
and docstrings of the source name no numbered working periods or machine loans, no "this project's VM", no
numbered series of runs, no first person, no developer's /tmp paths and no files outside the
repository (the team's own design and platform notes).

Scanned: the pages in full (code blocks too); in C++, CUDA, JavaScript and CSS the comments; in
Python the comments and docstrings; in shell scripts, CMake and YAML the `#` comments. String
literals and code are not scanned: a test may well make a file under /tmp."""

import ast
import io
import os
import re
import subprocess
import sys
import tokenize
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SELF = Path(__file__).resolve()
SKIPPED_FOLDERS = {".git", "build", ".venv", "out", "ampbench-out", "__pycache__", "node_modules"}

ORDINALS = ("first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth"
            "|[0-9]+(?:st|nd|rd|th)")
PATTERNS = [
    re.compile(r"\bsessions? [0-9]+", re.I),
    re.compile(r"\bleases?\b", re.I),
    re.compile(r"PLATFORM\.md|DESIGN\.md|STYLE\.md|\.\./shared/"),
    re.compile(r"\bthis project['’]s\b", re.I),
    re.compile(rf"\b(?:{ORDINALS}) series\b", re.I),
    # First person, case-aware: "I" but not "I/O" or a flag's "-I"; "us" but not microseconds ("31 us",
    # "[3.2, 3.4] us", "us/step").
    re.compile(r"\b(?:I['’](?:m|ve|d|ll)|(?<![-/])I(?!/O)|myself|my|My|[wW]e['’](?:re|ve|ll|d)|we|We"
               r"|ourselves|ours|our|Our|(?<![0-9\])] )(?<![0-9])us(?!/)|Us)\b"),
    re.compile(r"/tmp/"),
]

HEREDOC = re.compile(r"(?<!<)<<(?!<)-?\s*['\"]?([A-Za-z_]\w*)['\"]?")  # <<EOF, <<-'EOF'; not <<<
C_LIKE = {".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh", ".js"}
HASH_COMMENTED = {".sh", ".cmake", ".yml", ".yaml"}
SOURCE_SUFFIXES = C_LIKE | HASH_COMMENTED | {"", ".py", ".css", ".txt"}


def diary(text):
    """The phrases in `text` that narrate the project's making."""
    matches = sorted((match.start(), match.group(0)) for pattern in PATTERNS for match in pattern.finditer(text))
    return [phrase for _, phrase in matches]


def c_comments(text, line_comments=True):
    """(line, text) of each line of the `//` and `/* */` comments, string and char literals skipped."""
    found, i, line, n = [], 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end
            for k, part in enumerate(text[i + 2:end].split("\n")):
                found.append((line + k, part))
            line += text.count("\n", i, end)
            i = end + 2
        elif line_comments and text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            found.append((line, text[i + 2:end]))
            i = end
        elif text.startswith('R"', i) and re.search(r"(?<!\w)(?:u8|u|U|L)?$", text[max(0, i - 2):i]):
            delimiter = text[i + 2:text.find("(", i)]
            end = text.find(")" + delimiter + '"', i)
            end = n if end < 0 else end + len(delimiter) + 2
            line += text.count("\n", i, end)
            i = end
        elif c in "\"'`" and not (c == "'" and re.match(r"[0-9A-Fa-f]'[0-9A-Fa-f]", text[i - 1:i + 2])):
            i += 1  # a string or char literal ("'" between digits is a C++ digit separator)
            while i < n and text[i] != c and (c == "`" or text[i] != "\n"):
                if text[i] == "\\":
                    i += 1
                if text[i:i + 1] == "\n":
                    line += 1
                i += 1
            if text[i:i + 1] == c:
                i += 1
        else:
            i += 1
    return found


def hash_comment(raw, quote, single_quotes):
    """The `#` comment of one line (or None) and the quote still open at its end."""
    i = 0
    while i < len(raw):
        c = raw[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 1
            elif c == quote:
                quote = None
        elif c == "\\":
            i += 1
        elif c == '"' or (c == "'" and single_quotes):
            quote = c
        elif c == "#" and (not single_quotes or i == 0 or raw[i - 1] in " \t;"):
            return raw[i + 1:], quote
        i += 1
    return None, quote


def hash_comments(text, single_quotes=True):
    """(line, text) of the `#` comments of a shell script (or CMake: `single_quotes=False`, where `'` is
    a plain character and `#` need not start a word). A here-document's lines are read one by one
    (its text is often a Python script, with comments of its own)."""
    found, quote, heredoc = [], None, None
    for number, raw in enumerate(text.split("\n"), 1):
        if heredoc:
            if raw.strip() == heredoc:
                heredoc = None
            else:
                comment, _ = hash_comment(raw, None, single_quotes)
                found.extend([(number, comment)] if comment is not None else [])
            continue
        comment, quote = hash_comment(raw, quote, single_quotes)
        if comment is not None:
            found.append((number, comment))
        marker = HEREDOC.search(raw) if single_quotes and not quote else None
        if marker:
            heredoc = marker.group(1)
    return found


def python_comments(text):
    """(line, text) of each line of the comments and docstrings of a Python file."""
    docstrings = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                docstrings.add((first.value.lineno, first.value.col_offset))
    found = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            found.append((token.start[0], token.string[1:]))
        elif token.type == tokenize.STRING and token.start in docstrings:
            found.extend((token.start[0] + k, part) for k, part in enumerate(token.string.split("\n")))
    return found


def shebang(text):
    first = text.split("\n", 1)[0]
    return first[2:] if first.startswith("#!") else None


def comments(path, text):
    """(line, text) of the prose in a source file that this test reads; None for a file it does not."""
    name, suffix = path.name, path.suffix
    interpreter = shebang(text)
    if suffix == ".py" or (not suffix and interpreter and "python" in interpreter):
        return python_comments(text)
    if suffix in C_LIKE or name.endswith(".cpp.in"):
        return c_comments(text)
    if suffix == ".css":
        return c_comments(text, line_comments=False)
    if name == "CMakeLists.txt" or name.endswith(".cmake.in") or suffix == ".cmake":
        return hash_comments(text, single_quotes=False)
    if suffix in HASH_COMMENTED or (not suffix and interpreter and re.search(r"\b(ba|z|da)?sh\b", interpreter)):
        return hash_comments(text)
    return None


def repository_files():
    try:
        listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard"], capture_output=True, text=True, check=True).stdout
        files = [ROOT / name for name in listed.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for folder, subfolders, names in os.walk(ROOT):
            subfolders[:] = [sub for sub in subfolders if sub not in SKIPPED_FOLDERS]
            files.extend(Path(folder) / name for name in names)
    return sorted(file for file in files if file.is_file() and not file.is_symlink() and file.resolve() != SELF)


def pages():
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def page_findings(path):
    return [f"{path.relative_to(ROOT)}:{number}: {phrase!r}"
            for number, line in enumerate(path.read_text().split("\n"), 1) for phrase in diary(line)]


def source_findings(path):
    if path.suffix not in SOURCE_SUFFIXES and not path.name.endswith(".in"):
        return []  # a picture, a database, a fixture: no comments to read
    try:
        text = path.read_text()
    except (UnicodeDecodeError, OSError):
        return []
    prose = comments(path, text)
    return [f"{path.relative_to(ROOT)}:{number}: {phrase!r}" for number, line in prose or [] for phrase in diary(line)]


class SpeaksOfTheProjectTest(unittest.TestCase):
    def assert_clean(self, findings) -> None:
        if findings:
            self.fail("narrates the project's making (file:line: phrase):\n" + "\n".join(findings))

    def test_the_pages_do_not_narrate_their_making(self) -> None:
        for page in pages():
            with self.subTest(page=page.name):
                self.assert_clean(page_findings(page))

    def test_the_comments_do_not_narrate_their_making(self) -> None:
        for path in repository_files():
            with self.subTest(file=str(path.relative_to(ROOT))):
                self.assert_clean(source_findings(path))

    def test_the_checks_catch_what_they_are_for(self) -> None:
        self.assertEqual(diary("measured in sess" "ion 24, and sess" "ions 17 and 21"), ["sess" "ion 24", "sess" "ions 17"])
        self.assertEqual(diary("a short lea" "se; Lea" "ses end"), ["lea" "se", "Lea" "ses"])
        self.assertEqual(diary("see PLAT" "FORM.md, DESIGN.md, STYLE.md and ../sh" "ared/notes"),
                         ["PLAT" "FORM.md", "DESIGN.md", "STYLE.md", "../sh" "ared/"])
        self.assertEqual(diary("on this project's VM; This project’s host"), ["this project's", "This project’s"])
        self.assertEqual(diary("the thirteenth series, the 41st series, a First series"),
                         ["thirteenth series", "41st series", "First series"])
        self.assertEqual(diary("I think we're done: my run, our VM, We saw, let us, I've, Our host"),
                         ["I", "we're", "my", "our", "We", "us", "I've", "Our"])
        self.assertEqual(diary("written to /tmp/cc123.s"), ["/tmp/"])
        self.assertEqual(diary("I/O bound, -I/usr/include, 31 us of a step, 4us, [3.2, 3.4] us, 9 us/step, "
                               "the users' runs, tmp/x, a series of runs, release, thus, mode_session 2"), [])

        source = ('int x = 1\'000;  // measured in sess' 'ion 24\n'
                  'const char* s = "// not a comment, sess" "ion 3";\n'
                  'auto r = R"(/* raw, our */)";\n'
                  '/* two lines:\n   our lea' 'se */\n')
        self.assertEqual([(n, diary(text)) for n, text in c_comments(source) if diary(text)],
                         [(1, ["sess" "ion 24"]), (5, ["our", "lea" "se"])])
        script = ('#!/usr/bin/env bash\n'
                  'echo "a # b, sess" "ion 3" ${#x} $#  # on this project\'s VM\n'
                  "cat <<'EOF'\n"
                  "# inside a here-document: our lea" "se\n"
                  "don't\n"
                  'EOF\n'
                  "echo 'x' # /tmp/y\n")
        self.assertEqual([(n, diary(text)) for n, text in hash_comments(script) if diary(text)],
                         [(2, ["this project's"]), (4, ["our", "lea" "se"]), (7, ["/tmp/"])])
        cmake = 'set(X "a#b")  # we set it\nmessage("sess" "ion 5")\n'
        self.assertEqual([(n, diary(text)) for n, text in hash_comments(cmake, single_quotes=False) if diary(text)],
                         [(1, ["we"])])
        python = ('"""Module: our notes."""\n'
                  'x = "sess" "ion 4"  # my comment\n'
                  'def f():\n'
                  '    """Two lines,\n'
                  '    the second: a lea' 'se."""\n')
        self.assertEqual([(n, diary(text)) for n, text in python_comments(python) if diary(text)],
                         [(1, ["our"]), (2, ["my"]), (5, ["lea" "se"])])
        self.assertEqual(diary("A clean comment: the GPU's first step after a switch is dearer (docs/gpu.md)."), [])

        # Each kind of file is read as its language: a shell script by its shebang, CMake by its name.
        def phrases(name, text):
            return [phrase for _, line in comments(Path(name), text) for phrase in diary(line)]
        self.assertEqual(phrases("harness/src/a.h", source), ["sess" "ion 24", "our", "lea" "se"])
        self.assertEqual(phrases("reports/assets/a.js", "var s = 'our lea" "se';  // on this project's VM\n"),
                         ["this project's"])
        self.assertEqual(phrases("scripts/tool", script), ["this project's", "our", "lea" "se", "/tmp/"])
        self.assertEqual(phrases("tests/CMakeLists.txt", cmake), ["we"])
        self.assertEqual(phrases("bench/a.py", python), ["our", "my", "lea" "se"])
        self.assertIsNone(comments(Path("tests/reports/golden/report.json"), '{"note": "sess" "ion 3"}'))


if __name__ == "__main__":
    sys.exit(unittest.main())
