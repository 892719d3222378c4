{{ config(enabled=(target.type == 'duckdb')) }}
{{ example_checks(ref('e3_users_snapshot_files_scd2'), ref('expected_e3_scd2'), keys=['userId']) }}
