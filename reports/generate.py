"""Regenerate the example reports in reports/ from fixtures/: python reports/generate.py [OUT_DIR]

The test suite runs this into a temporary folder and fails when the committed
examples drift from what the tool produces.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcpaql_conformance.evidence.bundle import load_bundle
from mcpaql_conformance.report import renderer
from mcpaql_conformance.report.badge import badge_status, badge_svg
from mcpaql_conformance.verdict.runner import evaluate

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = {  # report name -> (fixture, level)
    "level2-conformant": ("l2-conformant-bookmarks.json", 2),
    "level1-leaky-errors": ("diff-02-leak-stack-frame-notes.json", 1),
}
FORMATS = {"markdown": "md", "html": "html", "junit": "junit.xml", "json": "json"}


def generate(out: Path) -> list[Path]:
    written = []
    for name, (fixture, level) in EXAMPLES.items():
        report = evaluate(load_bundle(ROOT / "fixtures" / fixture), level)
        for fmt, suffix in FORMATS.items():
            path = out / f"{name}.{suffix}"
            path.write_text(renderer(fmt)(report, False), encoding="utf-8")
            written.append(path)
        badge = out / f"{name}.badge.svg"
        badge.write_text(badge_svg(badge_status(report)), encoding="utf-8")
        written.append(badge)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "reports"
    for path in generate(target):
        print(path)
