{{ example_checks(ref('e1_users_scd1_truncate'), ref('expected_e1_scd1_truncate')) }}
