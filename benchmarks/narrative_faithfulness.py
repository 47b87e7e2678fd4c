"""Validate the narrative faithfulness checks on both bundled use cases (offline), as the paper does.

For every case of the technical sample and both audiences, the template narrator writes a narrative
from the true SHAP top-n table and one from a table whose attribution values were permuted among the
top-n features; the offline extractor reads both back and both are scored against the true table.

Reports per use case and audience: n, mean rank/sign/value agreement of the faithful narratives, the
false-negative rate (faithful narratives flagged) and the true-negative rate (manipulated narratives
flagged; target >= 95%). Reference: Ichmoukhamedov, Hinns & Martens, "How good is my story?".

Every knob is set here: sample_size 50, random_state 42, top_n 5, thresholds rank 0.8 / sign 1.0,
SHAP only (LIME, Anchor, DiCE off). Usage: ``.venv/bin/python benchmarks/narrative_faithfulness.py``
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hexeval_engine import get_usecase, load_config, load_model  # noqa: E402
from hexeval_engine.narratives import run_narratives  # noqa: E402
from hexeval_engine.technical.run import run_technical_evaluation  # noqa: E402
from hexeval_engine.data.usecase_data import load_data_for_config  # noqa: E402

SETTINGS = {"evaluation": {"sample_size": 50, "random_state": 42,
                           "explainers": {"shap": {"enabled": True}, "lime": {"enabled": False},
                                          "anchor": {"enabled": False}, "dice": {"enabled": False}}},
            "narratives": {"enabled": True, "narrator": "simulated", "extractor": "offline", "top_n": 5,
                           "audience": "both", "sample_instances": 50, "min_rank_agreement": 0.8,
                           "min_sign_agreement": 1.0, "manipulation_check": True}}


def main() -> None:
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    print(f"{'use case':<12} {'audience':<13} {'n':>3} {'rank':>5} {'sign':>5} {'value':>5} {'top-n':>5} "
          f"{'FNR':>9} {'TNR':>11} {'seconds':>7}")
    for name in ("heart", "credit_risk"):
        uc = get_usecase(name)
        config = load_config(uc.config_path, SETTINGS)
        data = load_data_for_config(uc.data_path, config)
        technical = run_technical_evaluation(load_model(uc.model_path), data, config)
        start = time.perf_counter()
        run = run_narratives(data, technical, config)
        seconds = time.perf_counter() - start
        for audience, group in run.table.groupby("audience", sort=False):
            real, fake = group[~group["manipulated"]], group[group["manipulated"]]
            print(f"{name:<12} {audience:<13} {len(real):>3} {real['rank_agreement'].mean():>5.2f} "
                  f"{real['sign_agreement'].mean():>5.2f} {real['value_agreement'].mean():>5.2f} "
                  f"{real['top_n_mentioned'].mean():>5.2f} {int(real['flagged'].sum()):>3}/{len(real):<3}"
                  f"{real['flagged'].mean():>3.0%} {int(fake['flagged'].sum()):>3}/{len(fake):<3}"
                  f"{fake['flagged'].mean():>5.0%} {seconds:>7.2f}")


if __name__ == "__main__":
    main()
