-- E1 with the optional truncate row at sequence 3: only key 125 has events after it.
{{ config(
    materialized = 'auto_cdc',
    keys = ['userId'],
    sequence_by = 'sequenceNum',
    apply_as_deletes = "operation = 'DELETE'",
    apply_as_truncates = "operation = 'TRUNCATE'",
    except_column_list = ['operation', 'sequenceNum'],
    stored_as_scd_type = 1
) }}
select * from {{ ref('users_cdf_with_truncate') }}
