"""Property tests: random change feeds, shuffled arrival and random splits into runs, applied by
real dbt runs, must equal the reference model (auto_cdc_testkit.reference) on every engine.

The cases are drawn from the session's seed (auto_cdc_testkit.cases.generate) and applied together,
many models in one project, so one dbt invocation per run step serves them all. Each case's shape
(SCD type, partial-update mode, multi-column sequence, truncate) cycles through every combination, so
every run reaches each of them; the rest of the case is random. AUTO_CDC_PROPERTY_EXAMPLES sets the
number of cases per engine (docs/testing.md)."""

from hypothesis import strategies as st

from auto_cdc_testkit.cases import Case, check_batch, generate, in_batches

CASES_PER_EXAMPLE = 8
MAX_RUNS = 3


@st.composite
def cases(draw, index: int, scd=None, partial=..., runs=None, multi_seq=None, truncate=None):
    """A random feed; `scd`, `partial`, `runs`, `multi_seq` and `truncate` (SCD1: one truncate, or none)
    fix its shape (the Spark tier and test_dbt_targets_equal_the_reference_model cover each shape in turn)."""
    scd = draw(st.sampled_from([1, 2, "bitemporal"])) if scd is None else scd
    composite_key = draw(st.booleans())
    multi_seq = draw(st.booleans()) if multi_seq is None else multi_seq
    key_columns = ["k1", "k2"] if composite_key else ["k1"]
    seq_columns = ["s1", "s2"] if multi_seq else ["s1"]
    key_part2 = st.sampled_from(["x", "Y"]) if composite_key else st.just(None)
    seq_part2 = st.integers(0, 2) if multi_seq else st.just(None)
    keys = draw(st.lists(st.tuples(st.integers(1, 4), key_part2), min_size=1, max_size=4, unique=True))
    rows = []
    for key in keys:
        # distinct sequences per key, so the feed has no conflicts; collisions across keys are fine
        seqs = draw(st.lists(st.tuples(st.integers(0, 9), seq_part2), min_size=1, max_size=6, unique=True))
        for seq in seqs:
            op = draw(st.sampled_from("UUUD"))
            rows.append(dict(k1=key[0], k2=key[1], s1=seq[0], s2=seq[1], op=op,
                             a=draw(st.one_of(st.none(), st.integers(0, 2))),
                             b=draw(st.one_of(st.none(), st.sampled_from(["p", "q", "it's"]))),
                             cols=draw(st.one_of(st.none(), st.sampled_from(["", "a", "b", "a,b", "B, a", "A"]))),
                             st=draw(st.integers(0, 5))))
    if scd == 1 and truncate is not False:
        for seq in draw(st.lists(st.tuples(st.integers(0, 9), seq_part2), min_size=1 if truncate else 0, max_size=1,
                                 unique=True)):
            rows.append(dict(k1=None, k2=None, s1=seq[0], s2=seq[1], op="T", a=None, b=None, cols=None, st=0))
    # exact duplicates of some events are harmless (R7); bitemporal: the same event learned again later
    # or earlier (another system time) is the same event, learned at the earliest of them
    for r in draw(st.lists(st.sampled_from(rows), max_size=2)):
        rows.append(dict(r, st=draw(st.integers(0, 5))) if scd == "bitemporal" else dict(r))
    rows = draw(st.permutations(rows))
    runs = draw(st.integers(1, MAX_RUNS)) if runs is None else runs
    for r in rows:
        r["loaded"] = draw(st.integers(0, runs - 1))
    tracked = draw(st.sampled_from([None, ["a"], ["b"], []])) if scd != 1 else None
    if partial is ...:
        partial = draw(st.sampled_from([None, None] + partial_modes(scd)))
    return Case(name=f"case_{index}", scd=scd, key_columns=key_columns, seq_columns=seq_columns, rows=rows,
                tracked=tracked, sequence_in_output=draw(st.booleans()), use_cursor=draw(st.booleans()),
                partial=partial)


def partial_modes(scd) -> list[str]:
    """The R5 partial-update modes a shape takes (COLUMNS TO UPDATE is not for bitemporal targets)."""
    return (["ignore_null_updates", "ignore_null_updates_column_list", "ignore_null_updates_except_column_list"]
            + (["columns_to_update"] if scd != "bitemporal" else []))


batches = st.tuples(*[cases(i) for i in range(CASES_PER_EXAMPLE)])

# (SCD type, partial-update mode): every combination, in turn
SHAPES = [(scd, mode) for scd in (1, 2, "bitemporal") for mode in [None] + partial_modes(scd)]


def shaped_case(i: int):
    """Case i: shape i of SHAPES (cyclically), a multi-column sequence in every other case (alternating
    within the shapes from one cycle to the next), and every other SCD1 case with a truncate."""
    scd, mode = SHAPES[i % len(SHAPES)]
    multi_seq = (i + i // len(SHAPES)) % 2 == 0
    return cases(i, scd=scd, partial=mode, multi_seq=multi_seq, truncate=True if i % 2 else None)


def test_dbt_targets_equal_the_reference_model(make_project):
    generated = generate(shaped_case, salt=1)
    if len(generated) >= len(SHAPES):  # every shape, truncates and multi-column sequences are reached
        assert {(c.scd, c.partial) for c in generated} == set(SHAPES)
        assert any(r["op"] == "T" for c in generated for r in c.rows)
        assert {c.scd for c in generated if len(c.seq_columns) == 2} == {1, 2, "bitemporal"}
    for n, batch in enumerate(in_batches(generated)):
        check_batch(make_project(f"batch{n}"), batch)
