{{ example_checks(ref('e2_users_snapshot_scd1'), ref('expected_e2_scd1')) }}
