-- E1 as SCD type 2 where only changes outside `city` open a new version.
{{ config(
    materialized = 'auto_cdc',
    keys = ['userId'],
    sequence_by = 'sequenceNum',
    apply_as_deletes = "operation = 'DELETE'",
    except_column_list = ['operation', 'sequenceNum'],
    stored_as_scd_type = 2,
    track_history_except_column_list = ['city']
) }}
select * from {{ ref('users_cdf') }}
