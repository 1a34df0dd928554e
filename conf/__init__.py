"""privlab's shared config groups (data sets, mechanisms, launchers) and its root config, as package
data: the checkout's top-level ``conf/`` is the package ``privlab.conf`` once installed."""
