{{ example_checks(ref('e1_users_scd2_track_except_city'), ref('expected_e1_scd2_track_except_city'), keys=['userId']) }}
