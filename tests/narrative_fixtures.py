"""A small heart-like case with a known attribution table, for narrative tests without a model."""

from __future__ import annotations

from types import SimpleNamespace

from hexeval_engine.data.coding import FeatureCoder
from hexeval_engine.config.schema import Domain
from hexeval_engine.explanation import Explanation
from hexeval_engine.narratives.facts import build_facts

DOMAIN = Domain(name="Heart disease", prediction_task="presence of heart disease",
                positive_outcome="heart disease likely", negative_outcome="heart disease unlikely",
                feature_descriptions={"cp": "chest pain type", "thalach": "maximum heart rate achieved (bpm)",
                                      "ca": "number of major vessels coloured by fluoroscopy (0-4)",
                                      "oldpeak": "ST depression induced by exercise relative to rest (mm)",
                                      "sex": "sex", "age": "age (years)", "chol": "serum cholesterol (mg/dl)"})
FEATURES = ["age", "sex", "cp", "chol", "thalach", "oldpeak", "ca"]
CODER = FeatureCoder(FEATURES, {"cp": [0, 1, 2, 3], "sex": [0, 1]},
                     {"age": "int64", "chol": "int64", "thalach": "int64", "oldpeak": "float64", "ca": "int64"},
                     {"cp": {"0": "typical angina", "1": "atypical angina", "2": "non-anginal pain",
                             "3": "asymptomatic"}, "sex": {"0": "female", "1": "male"}})
DATA = SimpleNamespace(coder=CODER, feature_names=FEATURES)
ROW = {"age": 54, "sex": 1, "cp": 0, "chol": 230, "thalach": 150, "oldpeak": 1.4, "ca": 2}
ATTRIBUTIONS = {"cp": 0.21, "thalach": -0.15, "ca": 0.12, "oldpeak": 0.08, "sex": -0.05, "age": 0.01, "chol": 0.005}
CATEGORIES = {f: [CODER.label(f, v) for v in values] for f, values in CODER.categories.items()}


def facts(audience: str = "lay", top_n: int = 5, attributions: dict | None = None):
    exp = Explanation("SHAP", 7, 1, 0.81, attributions=dict(attributions or ATTRIBUTIONS))
    return build_facts(exp, ROW, DATA, DOMAIN, audience=audience, top_n=top_n)
