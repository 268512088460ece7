"""SWE-bench: code tasks (diffs) judged by running the instance's tests; built only when named (minutes per task)."""

from verifierbench.sources.base import Source

SOURCE = Source(
    name="swebench",
    select="verifierbench.sources.swebench.selection:select_tasks",
    decide="verifierbench.sources.swebench.reference:decide",
    decide_reusing="verifierbench.sources.swebench.reference:decide_reusing_runs",
    built_by_default=False,
    environment="verifierbench.sources.swebench.served_environment:environment_for",
    read_only_inputs="verifierbench.sources.swebench.served_environment:read_only_inputs",
    case_timeout="verifierbench.sources.swebench.budget:case_timeout_s",
    mutation_operators="verifierbench.sources.swebench.mutants:OPERATORS",
    audit_generators="verifierbench.audit.code:propose",
    docker_compose="verifierbench.sources.swebench.sandbox:compose_file",
    upstream="swebench",
)
