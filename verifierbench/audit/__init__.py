"""TestJack-style auditing of frozen verifiers (testjack paper §3): auditors propose new candidates, the
task's reference verifier certifies their labels, and a candidate the frozen verifier decides otherwise
is a witness that refutes it. Witnesses are pooled per task and replayed on every later audit."""
