"""The documentation examples as Python data, shared by the tests (the dbt seeds in
seeds/examples, built by integration_tests/, hold the same rows for `dbt build`)."""

E1_COLUMNS = [("userId", "integer"), ("name", "varchar"), ("city", "varchar"),
              ("operation", "varchar"), ("sequenceNum", "integer")]

# E1, in the documentation's arrival order.
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

E1_SCD1_COLUMNS = ["userId", "name", "city"]
E1_SCD2_COLUMNS = E1_SCD1_COLUMNS + ["__START_AT", "__END_AT"]

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

# E4 (bitemporal): all on 2025-07-18.
import datetime as _dt


# The four E1 targets: name -> (config, whether it reads the feed that gets the late truncate, target
# columns, expected rows).
E1_MODELS = {
    "e1_scd1": (E1_SCD1_CONFIG, False, E1_SCD1_COLUMNS, E1_SCD1),
    "e1_scd1_truncate": (E1_SCD1_CONFIG, True, E1_SCD1_COLUMNS, E1_SCD1_TRUNCATE),
    "e1_scd2": (E1_SCD2_CONFIG, False, E1_SCD2_COLUMNS, E1_SCD2),
    "e1_scd2_city": (E1_SCD2_CITY_CONFIG, False, E1_SCD2_COLUMNS, E1_SCD2_TRACK_EXCEPT_CITY),
}


def _t(hms: str) -> _dt.datetime:
    h, m, s = (int(x) for x in hms.split(":"))
    return _dt.datetime(2025, 7, 18, h, m, s)


E4_COLUMNS = [("CompanyId", "varchar"), ("datapoints", "varchar"), ("bt", "timestamp"), ("st", "timestamp"),
              ("op", "varchar")]
E4_FEED = [  # in arrival order
    ("A", "XFv1", _t("10:01:00"), _t("10:05:00"), "INSERT"),
    ("A", "XFv2", _t("12:15:43"), _t("12:20:00"), "UPDATE"),
    ("A", "XFv3", _t("12:05:00"), _t("12:25:00"), "UPDATE"),
    ("A", "XFv2", _t("12:30:00"), _t("12:30:00"), "DELETE"),
]
E4_CONFIG = dict(keys=["CompanyId"], sequence_by="bt", system_sequence_by="st", apply_as_deletes="op = 'DELETE'",
                 except_column_list=["bt", "st", "op"], stored_as_scd_type="bitemporal")
# (CompanyId, datapoints, __START_AT, __END_AT, __SYSTEM_START_AT, __SYSTEM_END_AT) after each change
E4_AFTER = [
    [("A", "XFv1", _t("10:01:00"), None, _t("10:05:00"), None)],
    [("A", "XFv1", _t("10:01:00"), None, _t("10:05:00"), _t("12:20:00")),
     ("A", "XFv1", _t("10:01:00"), _t("12:15:43"), _t("12:20:00"), None),
     ("A", "XFv2", _t("12:15:43"), None, _t("12:20:00"), None)],
    [("A", "XFv1", _t("10:01:00"), None, _t("10:05:00"), _t("12:20:00")),
     ("A", "XFv1", _t("10:01:00"), _t("12:15:43"), _t("12:20:00"), _t("12:25:00")),
     ("A", "XFv1", _t("10:01:00"), _t("12:05:00"), _t("12:25:00"), None),
     ("A", "XFv3", _t("12:05:00"), _t("12:15:43"), _t("12:25:00"), None),
     ("A", "XFv2", _t("12:15:43"), None, _t("12:20:00"), None)],
    [("A", "XFv1", _t("10:01:00"), None, _t("10:05:00"), _t("12:20:00")),
     ("A", "XFv1", _t("10:01:00"), _t("12:15:43"), _t("12:20:00"), _t("12:25:00")),
     ("A", "XFv1", _t("10:01:00"), _t("12:05:00"), _t("12:25:00"), None),
     ("A", "XFv3", _t("12:05:00"), _t("12:15:43"), _t("12:25:00"), None),
     ("A", "XFv2", _t("12:15:43"), None, _t("12:20:00"), _t("12:30:00")),
     ("A", "XFv2", _t("12:15:43"), _t("12:30:00"), _t("12:30:00"), None)],
]
E4_TARGET_COLUMNS = ["CompanyId", "datapoints", "__START_AT", "__END_AT", "__SYSTEM_START_AT", "__SYSTEM_END_AT"]


# E2 and E3 (snapshots): the snapshot table's columns, the versions' rows (userId, city) and the expected
# SCD2 (userId, city, __START_AT, __END_AT) and SCD1 tables.
SNAPSHOT_COLUMNS = [("userId", "integer"), ("city", "varchar"), ("version", "integer")]
E2_V0 = [(1, "Oaxaca"), (2, "Monterrey"), (3, "Tijuana")]
E2_V1 = [(2, "Carmel"), (3, "Los Angeles"), (4, "Death Valley"), (6, "Kings Canyon")]
E2_SCD2 = [(1, "Oaxaca", 0, 1), (2, "Monterrey", 0, 1), (2, "Carmel", 1, None), (3, "Tijuana", 0, 1),
           (3, "Los Angeles", 1, None), (4, "Death Valley", 1, None), (6, "Kings Canyon", 1, None)]
E2_SCD1 = [(2, "Carmel"), (3, "Los Angeles"), (4, "Death Valley"), (6, "Kings Canyon")]
E3_V1 = [(1, "Oaxaca"), (2, "Monterrey"), (3, "Tijuana")]
E3_V2 = [(2, "Carmel"), (3, "Los Angeles"), (4, "Death Valley")]
E3_SCD2 = [(1, "Oaxaca", 1, 2), (2, "Monterrey", 1, 2), (2, "Carmel", 2, None), (3, "Tijuana", 1, 2),
           (3, "Los Angeles", 2, None), (4, "Death Valley", 2, None)]
E3_SCD1 = [(2, "Carmel"), (3, "Los Angeles"), (4, "Death Valley")]


# Change data feed (docs/configuration.md, "Change data feed and metrics"): three runs over an SCD1 and an SCD2 target of one feed; run 2
# updates key 1, deletes key 2 and inserts key 3, run 3 brings a late event for key 1 (which splits
# the SCD2 history). The expected change feeds: (id, a, [__START_AT, __END_AT,] _change_type,
# _commit_version).
CDF_COLUMNS = [("id", "integer"), ("seq", "integer"), ("op", "varchar"), ("a", "varchar")]
CDF_CONFIG = dict(materialized="auto_cdc", keys=["id"], sequence_by="seq", apply_as_deletes="op = 'D'",
                  except_column_list=["op", "seq"], change_data_feed=True)
CDF_BATCHES = [[(1, 1, "U", "a1"), (2, 1, "U", "b1")],
               [(1, 5, "U", "a5"), (2, 5, "D", None), (3, 5, "U", "c5")],
               [(1, 3, "U", "a3")]]
CDF_SCD1_CHANGES = [
    (1, "a1", "insert", 1), (2, "b1", "insert", 1),
    (1, "a1", "update_preimage", 2), (1, "a5", "update_postimage", 2), (2, "b1", "delete", 2), (3, "c5", "insert", 2)]
CDF_SCD2_CHANGES = [
    (1, "a1", 1, None, "insert", 1), (2, "b1", 1, None, "insert", 1),
    (1, "a1", 1, None, "update_preimage", 2), (1, "a1", 1, 5, "update_postimage", 2), (1, "a5", 5, None, "insert", 2),
    (2, "b1", 1, None, "update_preimage", 2), (2, "b1", 1, 5, "update_postimage", 2), (3, "c5", 5, None, "insert", 2),
    (1, "a1", 1, 5, "update_preimage", 3), (1, "a1", 1, 3, "update_postimage", 3), (1, "a3", 3, 5, "insert", 3)]
# a downstream auto_cdc model that consumes only the new changes (cursor on _commit_version) and
# rebuilds its upstream target from them: format with cols (select list) and up (the upstream model)
CDF_DOWNSTREAM_SQL = ("select {cols}, _commit_version, _change_type from {{{{ auto_cdc.table_changes(ref('{up}'), 1) }}}} as c "
                      "where _change_type <> 'update_preimage'")
CDF_DOWNSTREAM_CONFIG = dict(materialized="auto_cdc", sequence_by="_commit_version", cursor_column="_commit_version",
                             apply_as_deletes="_change_type = 'delete'", except_column_list=["_commit_version", "_change_type"])
