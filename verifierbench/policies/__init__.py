"""Model-free policies: Inspect model providers (`verifierbench/<policy>`) that drive the real
agent loop offline with real tool calls, writing a verifier of a fixed kind."""
