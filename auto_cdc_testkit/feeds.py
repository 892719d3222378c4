"""Landed change feeds for the source-format tests: how a landing table receives its chunks over runs (out of
order, one chunk twice), and Postgres log positions as the numbers the macros make of them."""
from __future__ import annotations

import random
from typing import Sequence


def lsn_number(text: str) -> int:
    """A Postgres log position (`16/B374D848`) as a number: what lsn_number_sql computes."""
    high, low = text.split("/")
    return (int(high, 16) << 32) + int(low, 16)


def chunk(count: int, rng: random.Random, largest: int = 3) -> list[list[int]]:
    """The indexes 0..count-1 in consecutive chunks of 1..largest, as a loader lands a log's lines."""
    chunks, start = [], 0
    while start < count:
        size = rng.randint(1, largest)
        chunks.append(list(range(start, min(count, start + size))))
        start += size
    return chunks


def deliveries(chunks: Sequence[list], runs: int, rng: random.Random) -> list[list[list]]:
    """The chunks spread over `runs` runs in a random order (each run's chunks shuffled too), and one chunk
    of an earlier run delivered again in the last run: what each run's landing adds."""
    shuffled = list(chunks)
    rng.shuffle(shuffled)
    per_run: list[list[list]] = [[] for _ in range(runs)]
    for c in shuffled:
        per_run[rng.randrange(runs)].append(c)
    earlier = [c for run in per_run[:-1] for c in run] or list(chunks)
    per_run[-1].append(rng.choice(earlier))
    return per_run


def describe(per_run: Sequence[Sequence[list]]) -> str:
    """`run 1: [3, 4] [0]; run 2: ...`, for a failure message."""
    return "; ".join(f"run {n + 1}: " + " ".join(str(c) for c in run) for n, run in enumerate(per_run))
