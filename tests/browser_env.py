"""How the browser tests decide to run, skip or fail: one reading of ``CI`` for all of them.

On a developer machine a missing Chromium or Playwright skips the browser tests; with ``CI`` set to
``1``, ``true`` or ``yes`` (any case) either one missing fails instead, so a CI job never passes by
skipping its browser test.
"""

from __future__ import annotations


import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"


def in_ci() -> bool:
    """Whether the ``CI`` environment variable says this is a CI run."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def browser_marks() -> list:
    """The module marks of a browser test: browser, slow, and skipped without Chromium outside CI."""
    return [pytest.mark.browser, pytest.mark.slow,
            pytest.mark.skipif(not Path(CHROMIUM).exists() and not in_ci(),
                               reason="Chromium is not installed (make browser-deps)")]


def playwright_sync_api():
    """Playwright's sync API; skips the module without it, or fails it when :func:`in_ci`."""
    try:
        from playwright import sync_api  # imported here: the package is optional outside CI
    except ImportError as err:
        if in_ci():
            pytest.fail(f"CI=true but the Playwright package cannot be imported ({err}); install it (make browser-deps) "
                        "so the browser tests run instead of being skipped.", pytrace=False)
        pytest.skip("the Playwright package is not installed (make browser-deps)", allow_module_level=True)
    return sync_api


#: Where the browser tests save screenshots (git-ignored) so a person can look at what the browser saw.
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def settle(page) -> None:
    """Wait until the script run has finished and no placeholder skeletons remain."""
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stSkeleton\"]')"
        " && !document.querySelector('[data-testid=\"stStatusWidget\"] [data-testid=\"stStatusWidgetRunningIcon\"]')")
    page.wait_for_timeout(700)  # let charts and fonts settle


def choose_saved_run(page, position: int = 0) -> None:
    """Choose a run in Configure & Run's "Saved run" picker (nothing is preselected), newest first by default."""
    choose_option(page, page.get_by_test_id("stSelectbox").filter(has=page.get_by_text("Saved run", exact=True)),
                  position)


def choose_option(page, picker, position: int = 0, *, name=None) -> None:
    """Open ``picker`` (a locator of a select box or its combobox) and choose its option at ``position`` (among those
    whose text matches ``name``, a string or pattern, when given). Under load a click can land while the page
    redraws and open nothing, so the click is repeated until the list shows."""
    picker.scroll_into_view_if_needed()
    options = page.get_by_role("option") if name is None else page.get_by_role("option", name=name)
    for _ in range(3):
        picker.click()
        if options.first.is_visible() or (page.wait_for_timeout(800) or options.first.is_visible()):
            break
    options.nth(position).click()
    settle(page)


def click_load(page) -> None:
    """Click Configure & Run's "Load" once the chosen run has enabled it. The page redraws the button when a run is
    chosen, so a handle taken before the redraw detaches: the click (which waits until the button is enabled and
    retries a detached element) is the only action on it."""
    page.get_by_role("button", name="Load", exact=True).click()
