"""The run warnings about explainer plugins: those left out at loading and those that failed while explaining.

Public interface
----------------
``PLUGIN_FAILED``                                  the warnings' ``code`` (``"plugin_failed"``)
``plugin_warnings(config, metrics=None) -> list``  one warning per plugin left out or failed, each naming the fix
``plugin_messages(warnings) -> list[str]``         the sentences of those warnings (CLI summary, dashboard)

A warning is ``{"stage": "explainers", "code", "severity", "plugin", "message"}`` (``"method"`` too when the
plugin loaded but failed while explaining). Evaluate records them in ``EvaluationResult.warnings`` and the
run manifest's ``warnings``; the CLI summary and the dashboard's run summary show their messages.
"""

from __future__ import annotations

from .registry import method_specs, plugin_failures

PLUGIN_FAILED = "plugin_failed"  # PluginFailure.as_warning's code


def plugin_warnings(config, metrics=None) -> list[dict]:
    """Warnings for the plugins ``config`` names or the environment declares that could not be used.

    Parameters
    ----------
    config : HexevalConfig
        The run's config (``evaluation.explainers.plugins``).
    metrics : pandas.DataFrame, optional
        The technical metrics table (``method``, ``error``): a plugin's method whose row records an error failed
        while explaining.
    """
    out = [{**failure.as_warning(), "code": PLUGIN_FAILED,
            "message": failure.as_warning()["message"].rstrip() + " The run went on without it."}
           for failure in plugin_failures(config)]
    if metrics is None or not {"method", "error"} <= set(getattr(metrics, "columns", ())):
        return out
    errors = {str(m): str(e).strip() for m, e in zip(metrics["method"], metrics["error"])
              if isinstance(e, str) and e.strip()}
    for spec in method_specs(config):
        if spec.plugin and spec.name in errors:
            out.append({"stage": "explainers", "code": PLUGIN_FAILED, "severity": "warning", "plugin": spec.plugin,
                        "method": spec.name,
                        "message": f"The explainer plugin {spec.plugin} (method {spec.name!r}) failed while explaining: "
                                   f"{errors[spec.name].rstrip('.')}. Its row in the technical metrics "
                                   "records the error and it is not recommended; the other methods completed. Fix "
                                   "its explain() (docs/plugins.md, 'The explain() contract') or switch it off with "
                                   f"evaluation.explainers.{spec.settings_key}.enabled: false."})
    return out


def plugin_messages(warnings) -> list[str]:
    """The messages of the plugin warnings among ``warnings`` (a run's warnings, any codes)."""
    return [str(w.get("message", "")) for w in warnings or [] if isinstance(w, dict) and w.get("code") == PLUGIN_FAILED]

