"""``study power``: simulate the study before running it (issue 17; docs/power.md).

effects (the effect model and its validation) -> simulate (draws per seed) -> run (verdicts via
``analysis.verdicts``, the code of Table 6, and the power of Table 7's paired tests) -> output
(tables through ``analysis.render``, the power-curve figure) <- cli (the command).
"""
