"""Learning curves of a league run (issue 19): strength and secrecy of one agent's snapshots over training.

Reads ``league.pt`` (safely, as data), writes every frozen snapshot of ``--agent`` and its latest weights
as policy files under ``<run>/snapshots/``, measures each on ``--matches`` matches against ``counter``
on the secrecy frontier's config (``scripts/secrecy_frontier.py``: win rate and Eve/Bob), and draws,
beside them, each agent's block win rates from ``league.csv``. Results: ``curve.json`` (a snapshot
already measured there is kept, so the job resumes) and ``learning.png`` in ``--out``.

    OMP_NUM_THREADS=1 python scripts/league_curves.py runs/league_4p/league.pt --matches 200 \\
        --out docs/results/league_4p
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from secrecy_frontier import measure  # scripts/ is on the path when this file runs as a script

from baselines.checkpoint_io import load_checkpoint, save_checkpoint
from baselines.league import LEAGUE_FORMAT, check_league_state
from baselines.run_log import policy_payload
from quatro_env.common.cli import OneLineParser, int_in, one_line_error, output_dir_problem
from quatro_env.eval.runner import MAX_WORKERS


def export_snapshots(league_file: Path, agent: str) -> list[tuple[int, str, Path]]:
    """``(agent_steps, id, file)`` of every snapshot of ``agent`` and of its latest weights, oldest first."""
    state = load_checkpoint(league_file, (LEAGUE_FORMAT,))
    check_league_state(state)
    if agent not in state["agents"]:
        raise ValueError(f"--agent {agent!r}: the league's agents are {sorted(state['agents'])}")
    latest = state["agents"][agent]
    out_dir = league_file.parent / "snapshots"
    made = []
    for player in [p for p in state["players"] if p["agent"] == agent] + [None]:
        payload = policy_payload(latest, f"league snapshot of {agent} from {league_file}")
        if player is not None:
            payload["model"], payload["agent_steps"] = player["params"], int(player["agent_steps"])
            payload["updates"] = None
        pid = f"{agent}@{payload['agent_steps']}"
        if any(pid == m[1] for m in made):  # the latest is also the last snapshot
            continue
        path = out_dir / f"{pid.replace('@', '_')}.pt"
        save_checkpoint(payload, path)
        made.append((payload["agent_steps"], pid, path))
    return sorted(made)


def block_rows(league_csv: Path) -> list[dict[str, str]]:
    with league_csv.open() as f:
        return list(csv.DictReader(f))


def plot(curve: list[dict], blocks: list[dict[str, str]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(16, 4.5))
    ax = axes[0]
    for agent in dict.fromkeys(r["agent"] for r in blocks):
        rows = [r for r in blocks if r["agent"] == agent]
        ax.plot(
            [int(r["agent_steps"]) / 1e6 for r in rows],
            [float(r["block_win_rate"]) for r in rows],
            ".-",
            ms=3,
            lw=0.8,
            label=f"{agent} ({rows[0]['role']})",
        )
    ax.axhline(0.5, color="grey", lw=0.5)
    ax.set(
        title="block win rate against the block's opponent",
        xlabel="agent-steps of the agent (M)",
        ylabel="seat-episodes won",
        ylim=(0, 1),
    )
    ax.legend(fontsize=8)
    steps = [r["agent_steps"] / 1e6 for r in curve]
    ax = axes[1]
    win = [r["win_rate_vs_counter"] for r in curve]
    lo = [r["win_rate_vs_counter"] - r["win_ci95"][0] for r in curve]
    hi = [r["win_ci95"][1] - r["win_rate_vs_counter"] for r in curve]
    ax.errorbar(steps, win, yerr=[lo, hi], fmt="o-", capsize=3)
    ax.axhline(0.8, color="tab:red", ls="--", lw=0.8, label="target 0.80")
    ax.set(title="snapshot: win rate against counter", xlabel="agent-steps (M)", ylim=(0, 1))
    ax.legend(fontsize=8)
    ax = axes[2]
    for key, label in (("eve_tm_auc", "Eve"), ("bob_tm_auc", "Bob"), ("gap", "gap Bob − Eve")):
        ax.plot(steps, [r[key] if r[key] is not None else float("nan") for r in curve], "o-", label=label)
    ax.axhline(0.65, color="tab:blue", ls="--", lw=0.8, label="Eve target ≤ 0.65")
    ax.axhline(0.30, color="tab:green", ls="--", lw=0.8, label="gap target ≥ 0.30")
    ax.set(
        title="snapshot: secrecy against counter (time-matched)", xlabel="agent-steps (M)", ylim=(-0.1, 1.05)
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> None:
    p = OneLineParser(prog="league_curves.py", description=__doc__.splitlines()[0])
    p.add_argument("league", type=Path, help="a league.pt (league.csv beside it)")
    p.add_argument("--agent", default="main0")
    p.add_argument("--matches", type=int_in(1), default=200)
    p.add_argument("--seed", type=int_in(0), default=0)
    p.add_argument("--workers", type=int_in(1, MAX_WORKERS), default=min(2, MAX_WORKERS))
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    if not args.league.is_file():
        p.error(f"argument league: {str(args.league)!r}: no such file")
    if not (args.league.parent / "league.csv").is_file():
        p.error(f"argument league: no league.csv beside {str(args.league)!r} (the block win rates)")
    problem = output_dir_problem(args.out, ("curve.json", "learning.png"))
    if problem:
        p.error(f"--out: {problem}")
    try:  # a file that is no league, or an agent it does not have: refused before any match
        snapshots = export_snapshots(args.league, args.agent)
    except ValueError as exc:
        p.error(one_line_error(exc))
    path = args.out / "curve.json"
    done = json.loads(path.read_text()) if path.exists() else {"rows": []}
    have = {r["id"] for r in done["rows"]}
    for steps, pid, policy in snapshots:
        if pid in have:
            continue
        row = measure(str(policy), args.matches, args.seed, args.workers)
        s = row["secrecy"]
        done["rows"].append(
            {
                "id": pid,
                "agent_steps": steps,
                "matches": args.matches,
                "win_rate_vs_counter": row["win_rate_vs_counter"],
                "win_ci95": row["win_ci95"],
                **{
                    k: s.get(k)
                    for k in ("eve_tm_auc", "eve_tm_ci95", "bob_tm_auc", "bob_tm_ci95", "gap", "gap_ci95")
                    + ("eve_cm_auc", "bob_cm_auc", "cm_gap", "cm_gap_ci95", "cm_matched")
                },
                "wall_seconds": row["wall_seconds"],
            }
        )
        print(
            f"{pid}: win vs counter {row['win_rate_vs_counter']}, Eve {s.get('eve_tm_auc')} "
            f"Bob {s.get('bob_tm_auc')} gap {s.get('gap')}",
            flush=True,
        )
        done["command"] = (
            f"OMP_NUM_THREADS=1 python scripts/league_curves.py {args.league} "
            f"--agent {args.agent} --matches {args.matches} --out {args.out}"
        )
        done["rows"].sort(key=lambda r: r["agent_steps"])
        path.write_text(json.dumps(done, indent=1) + "\n")
    plot(done["rows"], block_rows(args.league.parent / "league.csv"), args.out / "learning.png")


if __name__ == "__main__":
    main()
