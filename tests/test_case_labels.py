"""The case a persona reads shows the use case's value labels, not raw codes."""

from __future__ import annotations

from hexeval_engine.raters.case import build_cases


def test_heart_case_features_use_value_labels(usecase_bundle):
    _, config, data, model = usecase_bundle("heart")
    case = build_cases(model, data, config.domain, [0])[0]
    values = {f.name: f.value for f in case.features}
    labels = config.domain.value_labels
    for feature in ("sex", "cp", "fbs", "thal"):
        assert values[feature] == labels[feature][str(data.X_test[feature].iloc[0])], feature
    # numeric features stay numbers, written with the use case's unit
    assert values["age"] == f"{int(data.X_test['age'].iloc[0])} years"
    assert values["chol"] == f"{int(data.X_test['chol'].iloc[0])} mg/dl"
