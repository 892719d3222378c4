"""The pictures of docs/semantics.md, computed by the reference model (auto_cdc_testkit/reference.py).

    .venv/bin/python docs/figures.py [OUT_DIR]      # default: docs/img; writes SVG, and PNG with --png

tests/unit/test_docs.py runs it and checks that the committed SVGs are what it draws, so the pictures
change when the semantics do.
"""
from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from auto_cdc_testkit.reference import (  # noqa: E402
    DELETE, END_AT, START_AT, SYSTEM_END_AT, SYSTEM_START_AT, UPSERT, Config, Event, apply)

# Drawn the same on every machine: no timestamps or random ids in the SVG.
matplotlib.rcParams.update({"svg.hashsalt": "auto-cdc", "svg.fonttype": "none", "font.size": 10,
                            "font.family": "DejaVu Sans"})
METADATA = {"Date": None, "Creator": None}

USERS = Config(columns=("user_id", "name", "city"), key_columns=("user_id",), scd_type=2)
OLD, LATE = "#9bb7d4", "#e8743b"  # versions the late events leave alone / create


def user_event(user_id, name, city, operation, seq):
    op = DELETE if operation == "DELETE" else UPSERT
    return Event((user_id,), (seq,), op, {"user_id": user_id, "name": name, "city": city})


# The change feed of the getting-started walkthrough, in arrival order: the last two events arrive after
# the events at sequence 6 of their keys.
ON_TIME = [user_event(*row) for row in [
    (124, "Raul", "Oaxaca", "INSERT", 1), (123, "Isabel", "Monterrey", "INSERT", 1),
    (125, "Mercedes", "Tijuana", "INSERT", 2), (126, "Lily", "Cancun", "INSERT", 2),
    (123, None, None, "DELETE", 6), (125, "Mercedes", "Guadalajara", "UPDATE", 6)]]
LATE_EVENTS = [user_event(*row) for row in [
    (125, "Mercedes", "Mexicali", "UPDATE", 5), (123, "Isabel", "Chihuahua", "UPDATE", 5)]]


def _history_panel(ax, rows, title, new_rows=()):
    keys = sorted({r["user_id"] for r in rows}, reverse=True)
    horizon = 8
    for y, key in enumerate(keys):
        versions = [r for r in rows if r["user_id"] == key]
        starts = {r[START_AT] for r in versions}
        for r in versions:
            start, end = r[START_AT], r[END_AT]
            is_new = (key, start, end) in new_rows
            width = (end if end is not None else horizon) - start
            ax.barh(y, width, left=start, height=0.62, color=LATE if is_new else OLD, edgecolor="#33415c")
            label = f"{r['city']}\n[{start}, {end if end is not None else 'NULL'})"
            ax.text(start + 0.07, y, label, va="center", ha="left", fontsize=8, color="#1b2333", linespacing=1.1)
            if end is None:
                ax.annotate("", xy=(horizon + 0.35, y), xytext=(horizon - 0.05, y),
                            arrowprops={"arrowstyle": "->", "color": "#33415c"})
            elif end not in starts:
                ax.text(end + 0.08, y, f"deleted at {end}", va="center", ha="left", fontsize=8, color="#b3261e")
    ax.set_yticks(range(len(keys)), [f"user {k}" for k in keys])
    ax.set_xlim(0.5, horizon + 0.5)
    ax.set_xticks(range(1, horizon + 1))
    ax.set_xlabel("sequence_num (__START_AT / __END_AT)")
    ax.set_title(title, loc="left", fontsize=10.5)
    ax.grid(axis="x", color="#e3e7ee")
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def scd2_late_event(out: Path) -> list[Path]:
    before = apply(ON_TIME, USERS)
    after = apply(ON_TIME + LATE_EVENTS, USERS)
    seen = {(r["user_id"], r[START_AT], r[END_AT]) for r in before}
    new_rows = {(r["user_id"], r[START_AT], r[END_AT]) for r in after} - seen
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9.5, 6.4), sharex=True)
    _history_panel(top, before, "Before: six events applied")
    _history_panel(bottom, after, "After a later run brings two late events, both at sequence 5 (orange: the versions they create or shorten)",
                   new_rows)
    top.set_xlabel("")
    fig.tight_layout()
    return _save(fig, out, "scd2-late-event")


COMPANIES = Config(columns=("CompanyId", "datapoints"), key_columns=("CompanyId",), scd_type="bitemporal")


def at(hms: str) -> datetime:
    return datetime(2025, 7, 18, *map(int, hms.split(":")))


# Business time (bt) is when a value became true; system time (st) when the table learned it. XFv3 arrives
# late on both timelines: learned at 12:25, it is true from 12:05, before XFv2 (true from 12:15:43).
COMPANY_EVENTS = [
    Event(("A",), (at("10:01:00"),), UPSERT, {"datapoints": "XFv1"}, system_seq=at("10:05:00")),
    Event(("A",), (at("12:15:43"),), UPSERT, {"datapoints": "XFv2"}, system_seq=at("12:20:00")),
    Event(("A",), (at("12:05:00"),), UPSERT, {"datapoints": "XFv3"}, system_seq=at("12:25:00")),
    Event(("A",), (at("12:30:00"),), DELETE, {}, system_seq=at("12:30:00")),
]
COLOURS = {"XFv1": "#9bb7d4", "XFv2": "#f2c14e", "XFv3": "#e8743b"}


def bitemporal(out: Path) -> list[Path]:
    """Business time is drawn to scale; system time by rank (each time the table learned something), so the
    short stretch where the corrections happen is as readable as the long one before it."""
    rows = apply(COMPANY_EVENTS, COMPANIES)
    lo, hi = at("10:00:00"), at("12:40:00")
    learned = sorted({e.system_seq for e in COMPANY_EVENTS})
    rank = {t: i for i, t in enumerate(learned)}
    now = len(learned)
    fig, ax = plt.subplots(figsize=(9.5, 5.2))
    for r in rows:
        x0, x1 = r[START_AT], r[END_AT] or hi
        y0 = rank[r[SYSTEM_START_AT]]
        y1 = rank[r[SYSTEM_END_AT]] if r[SYSTEM_END_AT] is not None else now
        current = r[SYSTEM_END_AT] is None
        ax.fill_between([x0, x1], y0, y1, facecolor=COLOURS[r["datapoints"]], alpha=1 if current else 0.5,
                        edgecolor="#33415c", linewidth=1.2, hatch=None if current else "//")
        narrow = (x1 - x0).total_seconds() < 20 * 60
        clock = "%H:%M" if narrow else "%H:%M:%S"
        end = r[END_AT].strftime(clock) if r[END_AT] else "NULL"
        ax.text(x0 + (x1 - x0) / 2, (y0 + y1) / 2, f"{r['datapoints']}\n{r[START_AT].strftime(clock)} .. {end}",
                ha="center", va="center", fontsize=8, color="#1b2333", linespacing=1.1, rotation=90 if narrow else 0)
    ax.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M"))
    ax.set_xlim(lo, hi)
    ax.set_ylim(0, now)
    ax.set_yticks(list(range(now + 1)),
                  [f"{t:%H:%M} {what}" for t, what in zip(learned, ["XFv1", "XFv2", "XFv3 (late)", "delete"])]
                  + ["(today)"], fontsize=8.5)
    ax.set_xlabel("business time: __START_AT .. __END_AT (when the value was true), to scale")
    ax.set_ylabel("system time: __SYSTEM_START_AT .. __SYSTEM_END_AT\n(when the table learned it; by rank)")
    ax.set_title("Company A: one rectangle per row. Hatched: beliefs a later event corrected;\n"
                 "solid: today's belief (__SYSTEM_END_AT is NULL)", loc="left", fontsize=10)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    return _save(fig, out, "bitemporal")


def _save(fig, out: Path, name: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}.svg"]
    fig.savefig(paths[0], format="svg", metadata=METADATA)
    if "--png" in sys.argv:
        paths.append(out / f"{name}.png")
        fig.savefig(paths[1], format="png", dpi=110)
    plt.close(fig)
    return paths


def main(out: Path) -> list[Path]:
    return scd2_late_event(out) + bitemporal(out)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    for path in main(Path(args[0]) if args else Path(__file__).parent / "img"):
        print(path)
