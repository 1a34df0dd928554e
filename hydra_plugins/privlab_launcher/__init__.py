"""privlab's process pool as a Hydra launcher (``hydra/launcher=privlab``) and its sweeper
(``hydra/sweeper=privlab``)."""
