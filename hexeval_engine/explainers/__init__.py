"""SHAP, LIME, Anchor and DiCE explanations of a wrapped model, in raw CSV columns and values.

Modules
-------
``registry``   which explainer serves which method (``EXPLAINERS``, ``enabled_methods``, ``build_explainer``)
``render``     plain-language and technical text
``base``       what every explainer shares

Running explainers over many cases (sequentially, in the helper process or on dask) lives in
:mod:`hexeval_engine.runtime` (``runtime.explain.explain_instances``, ``runtime.parallel.ExplainRunner``). This
package's ``__init__`` imports nothing, so the runtime can use the explainers without an import circle.
"""
