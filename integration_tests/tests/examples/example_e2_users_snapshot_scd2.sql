{{ example_checks(ref('e2_users_snapshot_scd2'), ref('expected_e2_scd2'), keys=['userId']) }}
