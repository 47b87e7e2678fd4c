"""Explainer plugins for HEXEval's tests.

``occlusion.OcclusionExplainer``      declared by the entry point (pyproject.toml): a decent attribution method
``model_blind.FixedOrderExplainer``   named in a config: attributions that ignore the model (fails the sanity check)
``broken``                            plugins that break the interface or raise mid-run (clear failures expected)
"""
