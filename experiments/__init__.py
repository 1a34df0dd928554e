"""privlab's own five papers, one experiment unit each (installed as ``privlab.experiments.<paper>``).

A unit is what every paper has, privlab's or a user's installed through the same ``privlab.papers``
entry points: its experiment modules, ``verdicts.py`` (what each claim compares), ``figures.py``
(the figure specs), ``conf/experiment/<paper>/`` and ``conf/study/<paper>/``, ``ledger.yaml``,
``audit.yaml`` and ``reference/`` (``quick/``, ``paper/``, ``studies/``). The science is in the
paper's library package, ``privlab.<paper>``.
"""
