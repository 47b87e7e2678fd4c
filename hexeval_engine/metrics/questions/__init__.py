"""Evidence per question: every method's skill on the four questions a stakeholder asks (issue 32).

Public interface (stable)
-------------------------
``question_skills(model, data, explanations, config, *, random_state, actionability=None) -> DataFrame``
    per-case rows ``(method, instance_id, metric, value, derived)`` as in
    :func:`hexeval_engine.metrics.compute.compute_instance_metrics`
``QUESTIONS``        ``("why", "what_if", "will_it_hold", "how_to_change")``
``SKILL_METRICS``    ``skill_<question>`` and ``skill_<question>_common``
``QUESTION_METRICS`` every metric name written (the skills and their supporting columns)

One module per question (:mod:`.why`, :mod:`.what_if`, :mod:`.will_it_hold`, :mod:`.how_to_change`); what
an explanation shows and how it is cut to a common size in :mod:`.shown`; the model's answer (binary,
multi-class, regression) in :mod:`.answer`; the rows sent to the model in :mod:`.rows`; the table in
:mod:`.skills`. Each skill is the score minus that of a reader who saw no explanation, so that reader scores
exactly 0 and a Random explanation 0 in expectation (``docs/metrics.md``, "Evidence per question").
"""

from .skills import QUESTION_METRICS, QUESTIONS, SKILL_METRICS, question_pass, question_skills

__all__ = ["QUESTIONS", "QUESTION_METRICS", "SKILL_METRICS", "question_pass", "question_skills"]
