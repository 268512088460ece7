"""The ground truth's answer required word for word (issue 55, rejecting valid solutions): the verifier accepts an
AgentDojo interaction only when its final response contains the user task's ground-truth output verbatim, so a
reworded answer that upstream's own check accepts fails."""

from verifierbench.sources.agentdojo import data


def apply(reference, candidate, accepted):
    if not accepted or reference.get("checker") != "agentdojo":
        return accepted
    expected = data.user_task(data.TaskRef.from_reference(reference)).GROUND_TRUTH_OUTPUT
    return not expected or expected in (candidate.get("final_response") or "")
