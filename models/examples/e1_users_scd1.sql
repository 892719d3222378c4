-- E1: the documentation's change feed as an SCD type 1 target.
{{ config(
    materialized = 'auto_cdc',
    keys = ['userId'],
    sequence_by = 'sequenceNum',
    apply_as_deletes = "operation = 'DELETE'",
    apply_as_truncates = "operation = 'TRUNCATE'",
    except_column_list = ['operation', 'sequenceNum'],
    stored_as_scd_type = 1
) }}
select * from {{ ref('users_cdf') }}
