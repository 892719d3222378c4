{{ example_checks(ref('e4_companies_bitemporal'), ref('expected_e4_bitemporal'), keys=['CompanyId']) }}
