{{ example_checks(ref('orders_history'), ref('expected_orders_history'), keys=['order_id']) }}
