-- E3: versioned snapshot files snapshot_<N>.csv read through DuckDB; every file not applied yet is
-- processed in version order in one run. last_snapshot_version() keeps already applied files out.
-- DuckDB only (read_csv): integration_tests/dbt_project.yml switches it on there alone.
{{ config(
    materialized = 'auto_cdc_snapshot',
    keys = ['userId'],
    snapshot_version = 'version',
    stored_as_scd_type = 1
) }}
select "userId", city, version
from (
    select *, cast(regexp_extract(filename, 'snapshot_([0-9]+)[.]csv', 1) as integer) as version
    from read_csv('{{ var("e3_snapshot_dir", "fixtures/e3") }}/snapshot_*.csv', filename = true,
                  columns = {'userId': 'integer', 'city': 'varchar'}, header = true)
) files
where {{ auto_cdc.last_snapshot_version() }} is null or version > {{ auto_cdc.last_snapshot_version() }}
