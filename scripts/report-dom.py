#!/usr/bin/env python3
"""Loads a `tide run --html` page in headless Chromium and prints, as JSON, what it shows.

    scripts/report-dom.py PAGE [FILTERS] [--screenshot PNG]

FILTERS is the page's address fragment (`failed-only&target=short&check=contains`), which the
page's script reads as its filters. Chromium runs the page's script, then its DOM is read back:
the count of cases shown, the matrix's rows and cells, each run's checks, tool calls, reasoning,
diff and teacher-forcing verdict, with whether each is hidden; anything the page would load
from elsewhere; and how long after navigation its script had applied the filters (`ready_ms`).
The test suite's HTML report tests drive it; `--screenshot` also writes what Chromium draws.
"""
import json
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def hidden(self):
        node = self
        while node is not None:
            if "hidden" in node.attrs:
                return True
            node = node.parent
        return False

    def find_all(self, predicate):
        for child in self.children:
            if isinstance(child, Node):
                if predicate(child):
                    yield child
                yield from child.find_all(predicate)


class Builder(HTMLParser):
    VOID = {"meta", "br", "input", "img", "link", "hr", "col", "wbr", "source"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", [], None)
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.current)
        self.current.children.append(node)
        if tag not in self.VOID:
            self.current = node

    def handle_endtag(self, tag):
        node = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data):
        self.current.children.append(data)


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("Chromium is not installed: make setup installs it (Debian's package chromium)")


def main():
    arguments = sys.argv[1:]
    screenshot = None
    if "--screenshot" in arguments:
        index = arguments.index("--screenshot")
        screenshot = arguments[index + 1]
        del arguments[index:index + 2]
    page = Path(arguments[0]).resolve()
    url = page.as_uri() + ("#" + arguments[1] if len(arguments) > 1 and arguments[1] else "")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
             "--allow-file-access-from-files"]
    dom = subprocess.run([chromium(), *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120, check=True).stdout
    if screenshot:
        subprocess.run([chromium(), *flags, "--hide-scrollbars", "--window-size=1280,1000", f"--screenshot={screenshot}", url],
                       capture_output=True, timeout=120, check=True)
    builder = Builder()
    builder.feed(dom)
    root = builder.root
    html = next(root.find_all(lambda n: n.tag == "html"))
    shown = next(root.find_all(lambda n: n.attrs.get("id") == "shown"))
    external = [value for node in root.find_all(lambda n: True) for key, value in node.attrs.items()
                if key in ("src", "href") and value and not value.startswith("#")]
    rows = []
    for row in root.find_all(lambda n: n.tag == "tr" and "case" in n.classes()):
        cells = [{"target": cell.attrs.get("data-target"), "text": cell.text().strip(), "class": cell.attrs.get("class"),
                  "hidden": cell.hidden()} for cell in row.find_all(lambda n: n.tag == "td")]
        rows.append({"case": row.children[0].text().strip(), "class": row.attrs.get("class"), "hidden": row.hidden(),
                     "cells": cells})
    runs = []
    for run in root.find_all(lambda n: n.tag == "section" and "run" in n.classes()):
        checks = [{"text": item.text().strip(), "class": item.attrs.get("class"), "check": item.attrs.get("data-check"),
                   "hidden": item.hidden()} for item in run.find_all(lambda n: n.tag == "li")]
        runs.append({
            "id": run.attrs.get("id"), "target": run.attrs.get("data-target"), "class": run.attrs.get("class"),
            "hidden": run.hidden(), "title": next(run.find_all(lambda n: n.tag == "h3")).text().strip(),
            "checks": checks,
            "users": [n.text() for n in run.find_all(lambda n: "user" in n.classes()) for n in n.find_all(lambda m: m.tag == "pre")],
            "answers": [n.text() for n in run.find_all(lambda n: "assistant" in n.classes())
                        for n in n.find_all(lambda m: m.tag == "pre")],
            "tool_calls": [n.text() for n in run.find_all(lambda n: "call" in n.classes()) for n in n.find_all(lambda m: m.tag == "code")],
            "reasoning": [n.text() for n in run.find_all(lambda n: "reasoning" in n.classes()) for n in n.find_all(lambda m: m.tag == "pre")],
            "removed": [n.text() for n in run.find_all(lambda n: n.tag == "del" and "diff" in (n.parent.parent.classes()))],
            "added": [n.text() for n in run.find_all(lambda n: n.tag == "ins" and "diff" in (n.parent.parent.classes()))],
            "forcing": [n.text() for n in run.find_all(lambda n: "forcing" in n.classes())],
            "errors": [n.text() for n in run.find_all(lambda n: n.tag == "pre" and "error" in n.classes())],
        })
    print(json.dumps({"shown": shown.text(), "ready_ms": int(html.attrs.get("data-ready-ms", "-1")), "external": external,
                      "title": next(root.find_all(lambda n: n.tag == "title")).text(), "rows": rows, "runs": runs}))


if __name__ == "__main__":
    main()
