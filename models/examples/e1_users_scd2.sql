-- E1 as an SCD type 2 target: every version with __START_AT / __END_AT.
{{ config(
    materialized = 'auto_cdc',
    keys = ['userId'],
    sequence_by = 'sequenceNum',
    apply_as_deletes = "operation = 'DELETE'",
    except_column_list = ['operation', 'sequenceNum'],
    stored_as_scd_type = 2
) }}
select * from {{ ref('users_cdf') }}
