{{ example_checks(ref('e1_users_scd1'), ref('expected_e1_scd1')) }}
