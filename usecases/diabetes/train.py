"""Train the diabetes progression model: a random forest regressor on the 10 baseline measurements.

``data.csv`` is scikit-learn's ``load_diabetes(scaled=False)`` data (no download), written once with the
target renamed ``disease_progression``. Deterministic (fixed seeds); run by ``hexeval prepare`` (``make run``/``make
test`` call it).
"""

from pathlib import Path

from sklearn.ensemble import RandomForestRegressor
from sklearn.pipeline import Pipeline


def build_pipeline(data):
    forest = RandomForestRegressor(n_estimators=100, max_depth=5, min_samples_leaf=3, random_state=42, n_jobs=1)
    return Pipeline([("model", forest)])


if __name__ == "__main__":
    from hexeval_engine.models.training import train_usecase
    from hexeval_engine.usecases import get_usecase

    card = train_usecase(get_usecase("diabetes", Path(__file__).resolve().parents[1]), build_pipeline)
    print(f"diabetes: test MAE {card['test_mae']:.1f}, R² {card['test_r2']:.3f} "
          f"({card['n_train']} train / {card['n_test']} test rows)")
