"""AppWorld: state tasks judged by AppWorld's own evaluation, run in AppWorld's separate venv."""

from verifierbench.sources.base import Source

SOURCE = Source(
    name="appworld",
    select="verifierbench.sources.appworld.build:select_tasks",
    decide="verifierbench.sources.appworld.reference:decide",
    mutation_operators="verifierbench.screening.state_mutants:OPERATORS",
)
