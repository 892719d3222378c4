-- E4: the documentation's bitemporal example. bt is business time (sequence_by), st system time.
{{ config(
    materialized = 'auto_cdc',
    keys = ['CompanyId'],
    sequence_by = 'bt',
    system_sequence_by = 'st',
    apply_as_deletes = "op = 'DELETE'",
    except_column_list = ['bt', 'st', 'op'],
    stored_as_scd_type = 'bitemporal'
) }}
select * from {{ ref('e4_events') }}
