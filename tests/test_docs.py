"""The users' documentation: its LED pictures are the firmware's current frames, its links stay
inside the repository, and the troubleshooting page quotes messages the code really prints."""

import ast
import re
import subprocess
import sys
import xml.dom.minidom

from conftest import ROOT

DOCS = ROOT / "docs"
PICTURES = DOCS / "pictures"
PAGES = [ROOT / "README.md"] + sorted(DOCS.glob("*.md"))


def test_led_pictures_are_current(tmp_path):
    # Drawn by the firmware from real positions: a change to the drawing code or to a scene
    # must come with fresh pictures (python docs/make_pictures.py).
    subprocess.run(
        [sys.executable, str(DOCS / "make_pictures.py"), str(tmp_path)], check=True, timeout=300
    )
    committed = sorted(PICTURES.glob("*.svg"))
    made = sorted(tmp_path.glob("*.svg"))
    assert [p.name for p in committed] == [p.name for p in made]
    for c, m in zip(committed, made):
        assert c.read_text() == m.read_text(), "stale %s: run python docs/make_pictures.py" % c.name
        doc = xml.dom.minidom.parseString(m.read_text())
        assert len(doc.getElementsByTagName("circle")) >= 256  # every LED of the canvas


def links(page):
    text = page.read_text()
    return re.findall(r"\]\(([^)\s]+)\)", text)


def test_links_stay_inside_the_repository_and_resolve():
    for page in PAGES:
        for target in links(page):
            if target.startswith(("http://", "https://", "mailto:", "#")):
                continue
            path = (page.parent / target.split("#")[0]).resolve()
            assert ROOT in path.parents, "%s links outside the repository: %s" % (page.name, target)
            assert path.exists(), "%s links to a missing file: %s" % (page.name, target)


def test_every_picture_is_shown_in_a_guide():
    shown = set()
    for page in PAGES:
        shown.update(t.split("/")[-1] for t in links(page) if t.endswith(".svg"))
    assert sorted(p.name for p in PICTURES.glob("*.svg")) == sorted(
        n for n in shown if (PICTURES / n).exists()
    )


def test_readme_sends_players_to_the_guides_not_outside():
    readme = (ROOT / "README.md").read_text()
    assert "../shared" not in readme
    for page in (
        "docs/play-bawo.md",
        "docs/play-oware.md",
        "docs/play-bagh-chal.md",
        "docs/rules.md",
        "docs/troubleshooting.md",
    ):
        assert "](%s)" % page in readme, page


def _message_patterns():
    """Every string literal of the host tools and the firmware long enough to be a message,
    as a regex: % placeholders match any text (adjacent literals are joined by the parser)."""
    pats = []
    for f in sorted((ROOT / "host" / "bawo").glob("*.py")) + sorted(
        (ROOT / "firmware").glob("*.py")
    ):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                s = node.value
                if len(re.sub(r"%[-#0-9.]*[sdrx]", "", s)) < 12:
                    continue
                rx = re.escape(s).replace("%%", "%")
                rx = re.sub(r"%[-#0-9.]*[sdrx]", "(.+)", rx)
                pats.append(re.compile(rx))
    return pats


def test_troubleshooting_answers_what_new_users_met():
    # The four faults a new user's first hour met, each a section of its own.
    headings = re.findall(r"^## (.+)$", (DOCS / "troubleshooting.md").read_text(), re.M)
    for topic in ("port is busy", "Permission denied", "at the REPL", "flash is full"):
        assert any(topic in h for h in headings), (topic, headings)


def test_troubleshooting_quotes_what_the_code_prints():
    text = (DOCS / "troubleshooting.md").read_text()
    quoted = []
    for block in re.findall(r"```text\n(.*?)```", text, re.S):
        quoted += [line for line in block.splitlines() if line.strip()]
    assert len(quoted) >= 6
    pats = _message_patterns()
    for line in quoted:
        msg = (
            line[len("bawo: error: ") :]
            if line.startswith("bawo: error: ")
            else line[len("bawo: ") :]
        )
        assert any(p.fullmatch(msg) for p in pats), "not a message the code prints: %s" % line
    # The permission message carries the fix itself.
    sys.path.insert(0, str(ROOT / "host"))
    from bawo.ports import DIALOUT_FIX

    assert DIALOUT_FIX in text
