"""Python helpers of the dbt-auto-cdc package: the reference model (``reference``), the names the
package reserves (``names``), and the test harness that drives real dbt runs (``harness``).
The package's run-time work is done by its Jinja macros; nothing here runs inside dbt."""
