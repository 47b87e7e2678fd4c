"""Rating tasks built by hand (personas and domain from the bundled heart files, no model needed)."""

from __future__ import annotations

from hexeval_engine import load_config
from hexeval_engine.personas import load_personas
from hexeval_engine.raters import Case, CaseFeature, RatingTask
from hexeval_engine.raters.prompt import method_label
from hexeval_engine.usecases import get_usecase
from persona_fixtures import attribution, counterfactual, rule

HEART = get_usecase("heart")


def heart_domain():
    return load_config(HEART.config_path).domain


def heart_personas():
    return load_personas(HEART.personas_path)


def heart_case(iid: int = 0) -> Case:
    features = (CaseFeature("age", "age (years)", "63"), CaseFeature("cp", "chest pain type", "typical angina"),
                CaseFeature("trestbps", "resting blood pressure (mm Hg)", "145"),
                CaseFeature("thalach", "maximum heart rate achieved (bpm)", "150"),
                CaseFeature("ca", "number of major vessels coloured by fluoroscopy (0-4)", "2"))
    return Case(iid, features, 1, "heart disease likely (refer for cardiac work-up)", 0.83, 0.5)


def heart_explanation(method: str, iid: int = 0):
    if method == "SHAP":
        return attribution(method, iid, {"cp": 0.4, "ca": 0.3, "thalach": -0.1, "age": 0.05})
    if method == "LIME":
        return attribution(method, iid, {"ca": 0.35, "cp": 0.2, "trestbps": 0.1, "thalach": -0.05})
    if method == "Anchor":
        return rule(iid, [("cp", "=", "typical angina"), ("ca", ">", 1)], 0.94, 0.18)
    return counterfactual(iid, [{"ca": (2, 0)}], [True])


def tasks(n: int, *, runs: int = 1, show_method_names: bool = False) -> list[RatingTask]:
    """``n`` distinct tasks (persona × method × case), each repeated ``runs`` times."""
    personas, domain = heart_personas(), heart_domain()
    out = []
    for k in range(n):
        persona = personas[k % len(personas)]
        method = ("SHAP", "LIME", "Anchor", "DiCE")[(k // len(personas)) % 4]
        iid = k // 16
        for run in range(runs):
            label = method_label(method, show_method_names=show_method_names)
            out.append(RatingTask(persona, heart_case(iid), heart_explanation(method, iid), domain, label, run))
    return out
