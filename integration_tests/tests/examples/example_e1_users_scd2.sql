{{ example_checks(ref('e1_users_scd2'), ref('expected_e1_scd2'), keys=['userId']) }}
