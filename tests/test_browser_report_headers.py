"""The report reads cleanly (issue 36, item 10): no table header breaks inside a word ("Interpretabil / ity",
"Completene / ss") at phone or desktop width, and no note about the config's keys reaches its reader.

The oracle is the browser's own layout: each word of every header (hyphenated words count as their parts)
is a DOM range whose boxes must all lie on one line. The run is a real one (heart, simulated personas) made with the bundled config.
"""

from __future__ import annotations

import pytest
from browser_env import ARTIFACTS, browser_marks

from hexeval_engine import evaluate
from hexeval_engine.report.html import write_report
from hexeval_engine.runs.store import load_run

pytestmark = browser_marks()

SMALL = {"evaluation": {"sample_size": 4, "bootstrap_resamples": 100, "stability": {"repeats": 1}},
         "personas": {"sample_instances": 2}, "narratives": {"enabled": False}}

BROKEN_WORDS = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const broken = [];
  for (const th of document.querySelectorAll('th')) {
    const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    let node;
    while ((node = walker.nextNode())) {
      const words = /[^\\s-]+/g;  // a break after a hyphen (held-/out) is a line break, not one inside a word
      let m;
      while ((m = words.exec(node.textContent))) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (lines.size > 1) broken.push(m[0]);
      }
    }
  }
  return broken;
}"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report-run")
    result = evaluate(usecase="heart", output_dir=out, config_overrides=SMALL)
    return write_report(load_run(result.output_path), out / "report.html")


def test_the_bundled_config_gives_the_reader_no_note_about_config_keys(report):
    html = report.read_text(encoding="utf-8")
    assert "older keys" not in html and "recommendations.weights" not in html


@pytest.mark.parametrize("width", [390, 1440])
def test_no_table_header_breaks_inside_a_word(chromium, report, width):
    context = chromium.new_context(viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        page.goto(report.as_uri())
        headers = page.locator("th").count()
        assert headers > 20  # the metrics, alternatives and ratings tables are there
        broken = page.evaluate(BROKEN_WORDS)
        (ARTIFACTS / "report-headers").mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "report-headers" / f"report-{width}.png"), full_page=True)
        assert broken == [], f"headers broken inside a word at {width} px: {sorted(set(broken))}"
    finally:
        context.close()
