"""Render a harness report as markdown, or write it as JSON (schema ``quatro-eval/1``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np


def _json_default(o: Any) -> Any:
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def write_json(report: dict[str, Any], path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1, default=_json_default) + "\n")
    return path


def write_doc_section(doc: str | Path, name: str, text: str) -> bool:
    """Replace what lies between ``<!-- NAME:begin -->`` and ``<!-- NAME:end -->`` in ``doc`` with
    ``text``: how a script keeps its table's copy in a docs page current. False (nothing written) when
    the page or either marker is missing."""
    doc, begin, end = Path(doc), f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    page = doc.read_text() if doc.exists() else ""
    if begin not in page or end not in page:
        return False
    head, rest = page.split(begin, 1)
    doc.write_text(f"{head}{begin}\n{text.rstrip()}\n{end}{rest.split(end, 1)[1]}")
    return True


def _f(x: float | None, nd: int = 2) -> str:
    return "—" if x is None else f"{x:.{nd}f}"


def _ci(rate: float | None, ci: list | None) -> str:
    if rate is None:
        return "—"
    return f"{rate:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]"


def config_line(report: dict[str, Any]) -> str:
    c = report["config"]
    n = c.get("matches", c.get("matches_per_pair"))
    per = "matches" if "matches" in c else "matches per pair"
    return (
        f"{c['num_players']} players, round {c['round_seconds']:g} s, {c['points_to_win']} points to win, "
        f"tick {c['tick_seconds']:g} s, pulse {c['pulse_seconds']:g} s, at most {c['max_rounds']} rounds "
        f"a match (then a draw unless a team has won); {n} {per}, seed {c['seed']}, seats rotated; "
        + (
            f"secrecy probes on the first {min(c['probe_matches'], n)} matches of each line-up."
            if c["probe_matches"]
            else "no secrecy probes."
        )
    )


def _secrecy_cells(sec: dict[str, Any] | None) -> str:
    """``baseline / outsider / partner`` AUCs, then the outsider's and partner's time-matched AUCs."""
    if not sec or sec.get("outsider") is None:
        return "— | —"
    plain = " / ".join(_f(sec[k]["auc"]) for k in ("baseline", "outsider", "partner"))
    matched = " / ".join(_f(sec[k].get("time_matched_auc")) for k in ("outsider", "partner"))
    return f"{plain} | {matched}"


def _team_row(t: dict[str, Any], first: str) -> str:
    sig, lis, ttc = t["signalling"], t["listening"], t["time_to_correct_call_s"]
    return (
        f"| {first} | {_ci(t['win_rate'], t['win_ci95'])} | {t['draws']} | {_f(t['points_per_round'])} "
        f"| {_f(t['quatro_precision'])} ({t['quatro_calls']}) "
        f"| {_f(t['contra_precision'])} ({t['contra_calls']}) "
        f"| {_f(ttc['median'], 1)} | {_f(sig['mutual_information_bits'], 3)} | {_f(lis['delta'])} "
        f"| {_secrecy_cells(t.get('secrecy'))} |"
    )


def _decoder_lines(teams: list[dict[str, Any]]) -> list[str]:
    """The Eve/Bob decoders' headline per team (``--decoders``; with ``--key-control`` the key's own
    gaps too), or nothing when they were not fitted."""
    measured = [(k, t, t.get("secrecy") or {}) for k, t in enumerate(teams)]
    if not any("eve_tm_auc" in sec for _, _, sec in measured):
        return []
    key = any("key_gap" in sec for _, _, sec in measured)
    columns = ["Eve time-matched", "Bob time-matched", "gap [95% CI]", "count-matched gap [95% CI]"]
    columns += ["key gap [95% CI]", "key count-matched gap [95% CI]"] if key else []
    columns += ["clock AUC", "fitted / held-out matches"]
    lines = [
        "",
        'Secrecy by the sequence decoders (docs/evaluation.md, "Secrecy, measured by Eve and Bob"):',
        "",
        "| slot: policy | " + " | ".join(columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for k, t, sec in measured:
        if sec.get("eve_tm_auc") is None:
            cells = ["—"] * (len(columns) - 1) + [f"{sec.get('matches', '—')} matches"]
        else:
            cells = [_ci(sec["eve_tm_auc"], sec["eve_tm_ci95"]), _ci(sec["bob_tm_auc"], sec["bob_tm_ci95"])]
            cells += [_gap(sec["gap"], sec["gap_ci95"]), _gap(sec["cm_gap"], sec["cm_gap_ci95"])]
            if key:
                cells += [_gap(sec["key_gap"], sec["key_gap_ci95"])]
                cells += [_gap(sec["key_cm_gap"], sec["key_cm_gap_ci95"])]
            cells += [_f(sec["clock_auc"]), f"{sec['train_matches']} / {sec['test_matches']}"]
        lines.append(f"| {k}: {t['policy']} | " + " | ".join(cells) + " |")
    return lines


def _gap(gap: float | None, ci: list) -> str:
    if gap is None:
        return "—"
    return f"{gap:+.2f}" + ("" if ci[0] is None else f" [{ci[0]:+.2f}, {ci[1]:+.2f}]")


TEAM_HEADER = (
    "| {first} | win rate [95% CI] | draws | points/round | «Quatro» precision (calls) "
    "| «Contra» precision (calls) | quartet→correct call, median s | signalling MI (bits) "
    "| listening Δ | secrecy AUC baseline / outsider / partner | time-matched AUC outsider / partner |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|"
)


def _matrix_lines(title: str, labels: list[str], cell: Any) -> list[str]:
    """A row-against-column table of the policies, ``cell(i, j)`` its text (the diagonal included)."""
    lines = [title, "", "| row vs column | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
    for i, a in enumerate(labels):
        lines.append(f"| **{a}** | " + " | ".join(cell(i, j) for j in range(len(labels))) + " |")
    return lines


def win_rate_lines(labels: list[str], cp: dict[str, Any]) -> list[str]:
    """The cross-play win-rate table (row against column, 95% interval, draw rate when any)."""

    def cell(i: int, j: int) -> str:
        w, d = cp["win_rate"][i][j], cp["draw_rate"][i][j]
        return _ci(w, cp["win_ci95"][i][j]) + (f" d{d:.2g}" if w is not None and d else "")

    title = "Win rate of the row policy against the column policy, 95% Wilson interval; `d` = draw rate."
    return _matrix_lines(title, labels, cell)


def points_lines(labels: list[str], cp: dict[str, Any]) -> list[str]:
    """The cross-play points-per-round table (row against column)."""
    title = "Points per round of the row policy against the column policy:"
    return _matrix_lines(title, labels, lambda i, j: _f(cp["points_per_round"][i][j]))


def _batch_lines(report: dict[str, Any]) -> list[str]:
    """A batch report (``quatro-eval --batched``): win and draw rates, points, calls; no per-tick metric."""
    seconds = report["wall_seconds"]
    lines = [
        f"Batched: every match at once on the batched engine, outcomes and calls only (no signalling, "
        f"listening or secrecy metrics); {seconds:.1f} s wall, "
        f"{report['agent_steps'] / max(seconds, 1e-9):,.0f} agent-steps/s.",
        "",
    ]
    if report["kind"] == "batch_cross_play":
        return lines + batch_cross_play_lines(report)
    lines.append(BATCH_HEADER.format(first="slot: policy"))
    lines += [_batch_row(t, f"{k}: {t['policy']}") for k, t in enumerate(report["teams"])]
    return lines + ["", f"Draws: {report['draws']} ({_f(report['draw_rate'])})."]


def batch_cross_play_lines(report: dict[str, Any]) -> list[str]:
    """A batched cross-play's tables: win rates, points per round, each policy pooled over its opponents."""
    labels, cp = report["policies"], report["cross_play"]
    lines = [*win_rate_lines(labels, cp), "", *points_lines(labels, cp), ""]
    lines += ["Per policy, pooled over all its opponents:", "", BATCH_HEADER.format(first="policy")]
    return lines + [_batch_row(t, t["policy"]) for t in report["summary"]]


BATCH_HEADER = (
    "| {first} | win rate [95% CI] | wins | points/round | «Quatro» precision (calls) "
    "| «Contra» precision (calls) |\n|---|---|---|---|---|---|"
)


def _batch_row(t: dict[str, Any], first: str) -> str:
    return (
        f"| {first} | {_ci(t['win_rate'], t['win_ci95'])} | {t['wins']} "
        f"| {_f(t['points_per_round'])} | {_f(t['quatro_precision'])} ({t['quatro_calls']}) "
        f"| {_f(t['contra_precision'])} ({t['contra_calls']}) |"
    )


def to_markdown(report: dict[str, Any]) -> str:
    lines = [f"Config: {config_line(report)}", ""]
    if report["kind"].startswith("batch_"):
        return "\n".join(lines + _batch_lines(report)) + "\n"
    if report["kind"] == "evaluate":
        lineup = report["lineups"][0]
        lines.append(
            f"{lineup['matches']} matches: {lineup['rounds_per_match']:.2f} rounds per match, "
            f"blank-round rate {_f(lineup['blank_round_rate'])}, draw rate {_f(lineup['draw_rate'])}."
        )
        lines.append("")
        lines.append(TEAM_HEADER.format(first="slot: policy"))
        for k, t in enumerate(lineup["teams"]):
            lines.append(_team_row(t, f"{k}: {t['policy']}"))
        return "\n".join(lines + _decoder_lines(lineup["teams"])) + "\n"

    if report["kind"] == "partner_play":
        return "\n".join(lines + _partner_play_lines(report)) + "\n"
    labels = report["policies"]
    cp = report["cross_play"]
    lines.extend(win_rate_lines(labels, cp))
    lines.append("")
    lines.extend(points_lines(labels, cp))
    lines.append("")
    lines.append("Per policy, pooled over all its opponents:")
    lines.append("")
    lines.append(TEAM_HEADER.format(first="policy"))
    for t in report["summary"]:
        if "win_rate" in t:
            lines.append(_team_row(t, t["policy"]))
    lines.append("")
    lines.append("Per line-up: rounds per match, blank-round rate, draw rate:")
    lines.append("")
    lines.append("| line-up | rounds/match | blank-round rate | draw rate |")
    lines.append("|---|---|---|---|")
    for lu in report["lineups"]:
        lines.append(
            f"| {' vs '.join(lu['policies'])} | {lu['rounds_per_match']:.2f} | {_f(lu['blank_round_rate'])} "
            f"| {_f(lu['draw_rate'])} |"
        )
    return "\n".join(lines) + "\n"


def _partner_play_lines(report: dict[str, Any]) -> list[str]:
    labels, pp = report["policies"], report["partner_play"]
    lines = [
        f"Mixed teams against `{report['opponent']}`: the row policy in the team's lower seat, the column "
        "policy as its partner (the diagonal: a policy with itself).",
        "",
    ]
    for title, cell in (
        (
            "Win rate of the mixed team, 95% Wilson interval:",
            lambda i, j: _ci(pp["win_rate"][i][j], pp["win_ci95"][i][j]),
        ),
        ("«Quatro» precision of the mixed team:", lambda i, j: _f(pp["quatro_precision"][i][j])),
        (
            "Listening Δ of the mixed team (P(call | partner shows the sign) − P(call | not)):",
            lambda i, j: _f(pp["listening_delta"][i][j]),
        ),
    ):
        lines += [title, "", "| row + column | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
        for i, a in enumerate(labels):
            lines.append(f"| **{a}** | " + " | ".join(cell(i, j) for j in range(len(labels))) + " |")
        lines.append("")
    return lines


def _interval(ci: list | None) -> str:
    return "—" if not ci or ci[0] is None else f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def _chosen_views(s: dict[str, Any]) -> str:
    if not s.get("selection"):
        return "—"
    return f"{s['eve_view']} ({s['epochs']['eve']}) / {s['bob_view']} ({s['epochs']['bob']})"


def secrecy_table(rows: list[dict[str, Any]], exploit: dict[str, dict[str, Any]] | None = None) -> str:
    """The Eve/Bob table of ``scripts/secrecy_frontier.py``: one row per policy (its matches against
    counter), time-matched AUCs with their bootstrap intervals, the gap, the plain and clock AUCs,
    the view and epochs each decoder was chosen with (``—`` for rows measured before the choice),
    the count-matched Eve and Bob with their gap (``—`` for rows measured before it) and the share of
    quartet rows they compare, and the best response's win rate where one was trained (with its start
    when not the policy's own weights: a bot's best response starts from scratch or a checkpoint). A † marks a
    decoder row measured before Eve read the card counts (``readers.card_count_features``): its Eve is
    a lower bound."""
    exploit = exploit or {}
    lines = [
        "| policy | win vs counter [95% CI] | Eve tm-AUC [CI] | Bob tm-AUC [CI] | gap Bob − Eve [CI] "
        "| Eve's / Bob's view (epochs) | Eve / Bob / clock AUC | sign coverage | rows (matches) "
        "| count-matched Eve / Bob, gap [CI] (quartet rows compared) | best response wins [CI] |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        s = r["secrecy"]
        e = exploit.get(r["policy"])
        br = "—" if e is None else f"{e['win_rate']:.2f} {_interval(e['win_ci95'])}{_best_response_notes(e)}"
        before = s.get("eve_tm_auc") is not None and not s.get("eve_card_count")
        name = f"{r['policy']} †" if before else r["policy"]
        lines.append(
            f"| {name} | {_ci(r['win_rate_vs_counter'], r['win_ci95'])} "
            f"| {_f(s['eve_tm_auc'])} {_interval(s.get('eve_tm_ci95'))} "
            f"| {_f(s['bob_tm_auc'])} {_interval(s.get('bob_tm_ci95'))} "
            f"| {_f(s['gap'])} {_interval(s['gap_ci95'])} | {_chosen_views(s)} "
            f"| {_f(s['eve_auc'])} / {_f(s['bob_auc'])} / {_f(s['clock_auc'])} "
            f"| {_f(s['sign_coverage'])} | {s['rows']} ({s['matches']}) | {_count_matched(s)} | {br} |"
        )
    return "\n".join(lines)


def exploit_calls_table(policies: list[str], exploit: dict[str, dict[str, Any]]) -> str:
    """How each best response wins (the ``calls`` of ``quatro-exploit``'s final matches): both sides'
    «Quatro» and «Contra» calls with the share that was right and, at 4 players, where the response's
    points came from. There a call scores one point (Q18, Q19): a right call for the caller's team, a
    wrong one for the other team; so the response's points are its right «Quatro» calls (it collected
    faster), its right «Contra» calls (it read the policy's code) and the policy's wrong calls (the
    policy's own mistakes). At 6 or 8 players a wrong call scores for other teams too: no split."""
    lines = [
        "| policy | best response wins [CI] | response «Quatro» right / calls "
        "| response «Contra» right / calls | policy «Quatro» right / calls | policy «Contra» right / calls "
        "| response's points: pace / reading / policy's errors | matches |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for policy in policies:
        e = exploit.get(policy)
        if e is None or "calls" not in e:
            continue
        response, other = e["calls"]["response"], e["calls"]["policy"]
        lines.append(
            f"| {policy} | {e['win_rate']:.2f} {_interval(e['win_ci95'])} | {_right_of(response, 'quatro')} "
            f"| {_right_of(response, 'contra')} | {_right_of(other, 'quatro')} "
            f"| {_right_of(other, 'contra')} | {_point_split(e)} "
            f"| {e['matches']} ({e.get('matches_on', 'harness')}) |"
        )
    return "\n".join(lines)


def right_calls(calls: dict[str, Any], kind: str) -> int:
    """Right calls of a kind from a report's ``KIND_calls`` and ``KIND_precision`` (precision times calls;
    exact below 5,000 calls: the precision keeps four places)."""
    return round((calls[f"{kind}_precision"] or 0.0) * calls[f"{kind}_calls"])


def _right_of(calls: dict[str, Any], kind: str) -> str:
    made, right = calls[f"{kind}_calls"], right_calls(calls, kind)
    return f"{right} / {made}" + (f" ({right / made:.0%})" if made else "")


def _point_split(e: dict[str, Any]) -> str:
    """The response's points as shares: its right «Quatro» calls / right «Contra» calls / the policy's
    wrong calls (4 players only, where each wrong call scores for the one other team)."""
    if e.get("eval_config", {}).get("num_players") != 4:
        return "—"
    response, other = e["calls"]["response"], e["calls"]["policy"]
    wrong = sum(other[f"{k}_calls"] - right_calls(other, k) for k in ("quatro", "contra"))
    parts = [right_calls(response, "quatro"), right_calls(response, "contra"), wrong]
    total = sum(parts)
    return " / ".join(f"{p / total:.0%}" for p in parts) + f" of {total}" if total else "—"


def _best_response_notes(e: dict[str, Any]) -> str:
    """Where the best response started, unless from the policy's own weights (the curve's 0.5), its
    draws and the batched engine's matches where the run recorded them, and the range of the win rates
    of responses trained with other seeds (``retrained``: ``scripts/exploit_spread.py``)."""
    notes = [] if e.get("init", "policy") == "policy" else [f"from {e['init']}"]
    if e.get("draws") is not None:
        notes.append(f"{e['draws']} of {e['matches']} drawn")
    if e.get("matches_on") == "batched":
        notes.append("batched matches")
    if e.get("retrained"):
        rates = e["retrained"]
        notes.append(f"{len(rates)} other seeds {min(rates):.2f}–{max(rates):.2f}")
    return f" ({'; '.join(notes)})" if notes else ""


def _count_matched(s: dict[str, Any]) -> str:
    if s.get("eve_cm_auc") is None:
        return "—"
    return (
        f"{_f(s['eve_cm_auc'])} / {_f(s['bob_cm_auc'])}, {_f(s['cm_gap'])} {_interval(s['cm_gap_ci95'])} "
        f"({s['cm_matched']:.0%})"
    )
