"""The SPEC's documentation examples as Python data, shared by the tests (the dbt seeds in
seeds/examples hold the same rows for `dbt build`)."""

E1_COLUMNS = [("userId", "integer"), ("name", "varchar"), ("city", "varchar"),
              ("operation", "varchar"), ("sequenceNum", "integer")]

# SPEC E1, in the documentation's arrival order.
E1_FEED = [
    (124, "Raul", "Oaxaca", "INSERT", 1),
    (123, "Isabel", "Monterrey", "INSERT", 1),
    (125, "Mercedes", "Tijuana", "INSERT", 2),
    (126, "Lily", "Cancun", "INSERT", 2),
    (123, None, None, "DELETE", 6),
    (125, "Mercedes", "Guadalajara", "UPDATE", 6),
    (125, "Mercedes", "Mexicali", "UPDATE", 5),
    (123, "Isabel", "Chihuahua", "UPDATE", 5),
]
E1_TRUNCATE = (None, None, None, "TRUNCATE", 3)

E1_CONFIG = dict(
    keys=["userId"],
    sequence_by="sequenceNum",
    apply_as_deletes="operation = 'DELETE'",
    except_column_list=["operation", "sequenceNum"],
)
E1_SCD1_CONFIG = dict(E1_CONFIG, stored_as_scd_type=1, apply_as_truncates="operation = 'TRUNCATE'")
E1_SCD2_CONFIG = dict(E1_CONFIG, stored_as_scd_type=2)
E1_SCD2_CITY_CONFIG = dict(E1_SCD2_CONFIG, track_history_except_column_list=["city"])

E1_SCD1 = [(124, "Raul", "Oaxaca"), (125, "Mercedes", "Guadalajara"), (126, "Lily", "Cancun")]
E1_SCD1_TRUNCATE = [(125, "Mercedes", "Guadalajara")]
E1_SCD2 = [
    (123, "Isabel", "Monterrey", 1, 5),
    (123, "Isabel", "Chihuahua", 5, 6),
    (124, "Raul", "Oaxaca", 1, None),
    (125, "Mercedes", "Tijuana", 2, 5),
    (125, "Mercedes", "Mexicali", 5, 6),
    (125, "Mercedes", "Guadalajara", 6, None),
    (126, "Lily", "Cancun", 2, None),
]
E1_SCD2_TRACK_EXCEPT_CITY = [
    (123, "Isabel", "Chihuahua", 1, 6),
    (124, "Raul", "Oaxaca", 1, None),
    (125, "Mercedes", "Guadalajara", 2, None),
    (126, "Lily", "Cancun", 2, None),
]
