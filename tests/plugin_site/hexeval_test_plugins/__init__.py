"""Explainer plugins for HEXEval's tests, written as an operator's own package would be (docs/plugins.md).

``occlusion.OcclusionExplainer`` is declared through the entry-point group ``hexeval.explainers``; the
others are named in a config (``evaluation.explainers.plugins``): ``constant.ConstantExplainer`` ignores the
model (the randomisation check must flag it), ``broken.NoSpec`` breaks the interface and ``broken.Raising``
raises while it explains.
"""
