{{ config(
    materialized = 'auto_cdc',
    keys = ['order_id'],
    sequence_by = 'version',
    apply_as_deletes = "op = 'D'",
    except_column_list = ['op', 'version'],
    stored_as_scd_type = 2
) }}
select * from {{ ref('orders_cdf') }}
