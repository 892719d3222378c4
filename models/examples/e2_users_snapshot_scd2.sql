-- E2: periodic snapshots, versions 0 and 1. The seed holds both snapshots with their version,
-- so `dbt build` applies them in one run; tests/functional/test_snapshots.py replaces the snapshot
-- table between two runs instead, with the same result.
{{ config(
    materialized = 'auto_cdc_snapshot',
    keys = ['userId'],
    snapshot_version = 'version',
    stored_as_scd_type = 2
) }}
select * from {{ ref('e2_snapshots') }}
