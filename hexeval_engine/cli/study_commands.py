"""``hexeval study create|serve|status|import|template|close`` (see docs/studies.md)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..errors import RunError
from .child_process import run_forwarding_signals
from ..paths import NAME_PATTERN, default_outputs_root, shown
from ..plain_values import describe_error
from ..ratings_summary import DIMENSIONS
from ..study import (ImportProblems, add_participants, close_study, create_study, import_ratings,
                     refresh_evidence, template)
from ..explanation import BASELINE_METHOD
from ..study.calibration import estimate_text, signed_text
from ..study.evidence import evidence_state, state_sentence
from ..study.human_table import human_ratings
from ..study.storage import read_study
from ..vocabulary import dimension_label, plural

#: The environment variable through which ``serve`` tells ``study_app.py`` which run it serves.
RUN_ENV = "HEXEVAL_STUDY_RUN"
APP = Path(__file__).resolve().parents[2] / "study_app.py"


def register(sub) -> None:
    """Add the ``study`` command and its sub-commands to the ``hexeval`` parser."""
    study = sub.add_parser("study", help="studies with real stakeholders on a saved run (docs/studies.md)")
    s = study.add_subparsers(dest="study_command", required=True)
    p = s.add_parser("create", help="create a study and print one link per participant")
    _run(p)
    p.add_argument("--cases", type=int, default=3, help="cases to show (each with every rated method; default 3)")
    p.add_argument("--participants", type=int, default=2, help="participant links to make (default 2)")
    p.add_argument("--url", default="http://localhost:8502", help="address participants reach `hexeval study serve` at")
    p.add_argument("--intro", help="a text file with the introduction and consent text participants read first "
                                   "(default: a short neutral introduction; the item count and time are added)")
    _role_option(p)
    p.set_defaults(func=create_cmd)
    p = s.add_parser("add", help="make more participant links for an open study")
    _run(p)
    p.add_argument("--participants", type=int, default=1)
    _role_option(p)
    p.set_defaults(func=add_cmd)
    p = s.add_parser("serve", help="serve only the study pages (nothing else of the dashboard)")
    _run(p)
    p.add_argument("--port", type=int, default=8502)
    p.add_argument("--address", default="127.0.0.1", help="interface to listen on (0.0.0.0 for other machines)")
    p.set_defaults(func=serve_cmd)
    for name, func, text in (("status", status_cmd, "answers so far; recomputes the calibration with them"),
                             ("close", close_cmd,
                              "close the study: links stop working, answers stay, the calibration is recomputed"),
                             ("template", template_cmd, "write the CSV template for ratings collected elsewhere")):
        p = s.add_parser(name, help=text)
        _run(p)
        if name == "template":
            p.add_argument("--out", help="file to write (default: print)")
        p.set_defaults(func=func)
    p = s.add_parser("import", help="import ratings from a filled-in CSV template")
    _run(p)
    p.add_argument("file", help="the CSV")
    p.set_defaults(func=import_cmd)


def _role_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--role", help="fix the participants' role in these links (they then do not choose one), e.g. "
                                  "\"Patient\"")


def _intro_text(path: str | None) -> str | None:
    if not path:
        return None
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise RunError(f"The introduction file '{shown(Path(path).name)}' cannot be read ({describe_error(err)}). "
                       "Give a UTF-8 text file.") from err


def _run(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help="run folder or run id (see `hexeval runs list`)")
    p.add_argument("--output", help="runs root used to find a run id")


def find_run(ref: str, output: str | None) -> Path:
    """The run folder ``ref`` names: a folder, or a run id (or its unique start) under the runs root."""
    path = Path(ref)
    if path.is_dir():
        return path
    if not NAME_PATTERN.fullmatch(ref):
        raise RunError(f"'{shown(ref)}' is neither a run folder nor a run id. List runs with `hexeval runs list`.")
    root = Path(output) if output else default_outputs_root()
    matches = [p for p in root.glob("*/*") if p.is_dir() and p.name.startswith(ref) and not p.name.startswith(".")]
    if len(matches) != 1:
        raise RunError(f"'{shown(ref)}' matches {plural(len(matches), 'run')} under the runs root; give the run folder "
                       "or more of the id (see `hexeval runs list`).")
    return matches[0]


def create_cmd(args) -> int:
    run = find_run(args.run, args.output)
    intro = _intro_text(args.intro)  # a missing file is said before any work starts
    print("Creating the study; the run's personas answer its what-if questions (an LLM run asks its LLM now, and "
          "re-rates the items with their labels swapped) ...", flush=True)
    links = create_study(run, cases=args.cases, participants=args.participants, base_url=args.url,
                         intro=intro, role=args.role)
    _print_links(links)
    print(f"Serve the study with: hexeval study serve {run}")
    return 0


def add_cmd(args) -> int:
    _print_links(add_participants(find_run(args.run, args.output), args.participants, role=args.role))
    return 0


def _print_links(links: dict) -> None:
    print("Participant links (each works for one person; they are shown only now):")
    for pid, link in links.items():
        print(f"  {pid}: {link}")


def serve_cmd(args) -> int:
    run = find_run(args.run, args.output)
    study = read_study(run)
    if study.get("status") != "open":
        raise RunError("This study is closed, so there is nothing to serve. Create a study on a new run.")
    env = {**os.environ, RUN_ENV: str(run.resolve())}
    command = [sys.executable, "-m", "streamlit", "run", str(APP), "--server.port", str(args.port),
               "--server.address", args.address, "--server.headless", "true", "--browser.gatherUsageStats", "false",
               "--client.showSidebarNavigation", "false", "--client.toolbarMode", "minimal"]
    print(f"Serving the study of run {run.name} on http://{args.address}:{args.port}/ (Ctrl-C stops it).", flush=True)
    return run_forwarding_signals(command, env=env)


def status_cmd(args) -> int:
    run = find_run(args.run, args.output)
    study = read_study(run)
    humans = human_ratings(run, study)
    n_items = len(study["items"])
    print(f"Study of run {run.name}: {study['status']}, {plural(n_items, 'item')} per participant.")
    roles = dict(zip(humans["participant_id"], humans["role"]))
    for pid, link in study["participants"].items():
        done = int((humans["participant_id"] == pid).sum())
        role = roles.get(pid) or link.get("role")
        print(f"  {pid}{f' ({role})' if role else ''}: {done} of {n_items} answered")
    imported = len(study.get("imported", []))
    if imported:
        print(f"  imported: {plural(imported, 'rating')}")
    if humans.empty:
        print("No answers yet: no calibration.")
        return 0
    print(f"Recomputing the calibration and the recommendations with {plural(len(humans), 'rating')} ...", flush=True)
    cal = refresh_evidence(run)
    print(state_sentence(evidence_state(run)))
    _print_calibration(cal)
    return 0


def _print_calibration(cal: dict) -> None:
    for role, block in cal["roles"].items():
        print(f"\n{role}: {plural(block['n_people'], 'person', 'people')}, {plural(block['n_ratings'], 'rating')}")
        print(f"  {block['sentence']}")
        print(f"  {'question':<20} {'Spearman':>22} {'alpha people':>22} {'alpha personas-people':>24}")
        for d in DIMENSIONS:
            row = block["dimensions"][d]
            cells = [estimate_text(row[key]) for key in ("spearman", "alpha_humans", "alpha_personas_humans")]
            print(f"  {dimension_label(d):<20} {cells[0]:>22} {cells[1]:>22} {cells[2]:>24}")
        _print_forward(block, cal.get("persona_kind", "simulated"))
    checks = cal.get("judge_checks") or {}
    if checks:
        print("\nJudge checks without people:")
        print(f"  {checks.get('test_retest_text', '')}")
        print(f"  {checks.get('label_swap_text', '')}")


def _print_forward(block: dict, persona_kind: str) -> None:
    """What-if accuracy per method, and paired against the Random explanation on the same cases."""
    forward = block.get("forward_accuracy") or {}
    methods = sorted(set(forward.get("people", {})) | set(forward.get("personas", {})))
    if not methods:
        return
    personas = "simulated readers" if persona_kind == "simulated" else "LLM personas"
    print(f"  What-if answers against the Random explanation (share right; paired difference, 95% interval, pairs):")
    print(f"  {'explanation':<12} {'people right':>22} {'people - Random':>30} {personas + ' right':>24} "
          f"{personas + ' - Random':>30}")
    for m in methods:
        cells = [estimate_text(forward.get("people", {}).get(m, {})),
                 signed_text(forward.get("people_vs_random", {}).get(m, {})) if m != BASELINE_METHOD else "baseline",
                 estimate_text(forward.get("personas", {}).get(m, {})),
                 signed_text(forward.get("personas_vs_random", {}).get(m, {})) if m != BASELINE_METHOD else "baseline"]
        print(f"  {m:<12} {cells[0]:>22} {cells[1]:>30} {cells[2]:>24} {cells[3]:>30}")
    print(f"  {block.get('forward_sentence', '')}")


def close_cmd(args) -> int:
    run = find_run(args.run, args.output)
    close_study(run)
    print(f"The study of run {run.name} is closed; its links no longer work.")
    if not human_ratings(run, read_study(run)).empty:
        refresh_evidence(run)
        print(state_sentence(evidence_state(run)) + " See it with `hexeval study status` or on the Results page.")
    return 0


def template_cmd(args) -> int:
    text = template(find_run(args.run, args.output))
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"Wrote the template to {args.out}.")
    else:
        print(text, end="")
    return 0


def import_cmd(args) -> int:
    run = find_run(args.run, args.output)
    try:
        n = import_ratings(run, args.file)
    except ImportProblems as err:
        print(f"hexeval study import: {err}", file=sys.stderr)
        return 1
    print(f"Imported {plural(n, 'rating')} into the study of run {run.name}.")
    return 0
