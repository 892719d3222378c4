"""Mirror of ``macros/names.sql``: the names the package reserves or creates.

``tests/unit/test_names.py`` checks that this table and the macro agree."""

NAMES = {
    "start_at": "__START_AT",
    "end_at": "__END_AT",
    "system_start_at": "__SYSTEM_START_AT",
    "system_end_at": "__SYSTEM_END_AT",
    "internal_prefix": "__auto_cdc_",
    "op": "__auto_cdc_op",
    "run": "__auto_cdc_run",
    "cursor": "__auto_cdc_cursor",
    "columns": "__auto_cdc_columns",
    "edit": "__auto_cdc_edit",
    "rank": "__auto_cdc_rank",
    "fast": "__auto_cdc_fast",
    "new_events": "__auto_cdc_new_events",
    "held_at": "__auto_cdc_held_at",
    "merge_action": "__auto_cdc_upsert",
    "fingerprint": "__auto_cdc_fp",
    "log_suffix": "__auto_cdc_log",
    "runs_suffix": "__auto_cdc_runs",
    "seq_type_suffix": "__auto_cdc_seq",
    "batch_suffix": "__auto_cdc_batch",
    "new_suffix": "__auto_cdc_new",
    "logged_suffix": "__auto_cdc_logged",
    "affected_suffix": "__auto_cdc_affected",
    "history_suffix": "__auto_cdc_history",
    "held_suffix": "__auto_cdc_held",
    "desired_suffix": "__auto_cdc_desired",
    "stale_suffix": "__auto_cdc_stale",
    "missing_suffix": "__auto_cdc_missing",
    "recorded_suffix": "__auto_cdc_recorded",
    "edited_suffix": "__auto_cdc_edited",
    "edits_suffix": "__auto_cdc_edits",
    "changes_suffix": "__auto_cdc_changes",
    "prior_suffix": "__auto_cdc_prior",
    "snapshot_suffix": "__auto_cdc_snapshot",
    "version": "__auto_cdc_version",
    "current": "__auto_cdc_current",
    "bucket": "__auto_cdc_bucket",
    "rewrite_suffix": "__auto_cdc_rewrite",
    "lock_suffix": "__auto_cdc_lock",
    "erased_suffix": "__auto_cdc_erased",
    "upsert": "upsert",
    "delete": "delete",
    "truncate": "truncate",
    "mask": "mask",
    # the columns the source-format macros (macros/sources/) add to a feed
    "feed_sequence": "_cdc_sequence",
    "feed_deleted": "_cdc_deleted",
}

RESERVED_COLUMNS = (NAMES["start_at"], NAMES["end_at"], NAMES["system_start_at"], NAMES["system_end_at"])


IDENTIFIER_BYTES = 63  # Postgres' limit, in bytes of UTF-8


def side_identifier(identifier: str, suffix: str) -> str:
    """Mirror of the macro ``_side_identifier``: ``<identifier><suffix>``, shortened with a hash of the
    identifier when it would pass the limit in bytes; never cut inside a character."""
    import hashlib

    name = identifier + suffix
    if len(name.encode("utf-8")) <= IDENTIFIER_BYTES:
        return name
    budget = IDENTIFIER_BYTES - len(suffix.encode("utf-8")) - 9
    prefix = ""
    for ch in identifier:
        if len((prefix + ch).encode("utf-8")) > budget:
            break
        prefix += ch
    return prefix + "_" + hashlib.md5(identifier.encode("utf-8")).hexdigest()[:8] + suffix
