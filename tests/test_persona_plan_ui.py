"""Configure & Run shows the persona ratings (and LLM calls) the run will make, from the engine's plan."""

from __future__ import annotations

from app_helpers import app, open_page, texts

from hexeval_engine import get_usecase, load_config
from hexeval_engine.raters.run import persona_plan


def test_configure_page_shows_the_planned_ratings_and_warns_below_eight_cases():
    at = open_page(app(usecase="heart"), "app_pages/configure_run.py")
    config = load_config(get_usecase("heart").config_path)
    plan = persona_plan(config, n_personas=4)
    shown = texts(at)
    assert f"**{plan['ratings']} ratings**" in shown and f"× {plan['cases']} cases" in shown
    assert "6 methods (including the written narrative and the Random baseline as a sanity reference)" in shown
    if plan["cases"] < 8:
        assert any("fewer than 8" in c.value for c in at.caption)

    at.number_input(key="heart:anchor:max").set_value(20)
    at.number_input(key="heart:dice:max").set_value(20).run()
    shown = texts(at)
    assert "4 personas × 6 methods" in shown and "× 8 cases × 1 rating per explanation = **192 ratings**" in shown
    assert "fewer than 8" not in texts(at)
