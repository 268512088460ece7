"""The foundation every layer may import, standard library only: user errors, content hashing, JSON lines, safe
file access below untrusted directories, package resources, the suite's data model (`schema`), an auditor's
proposals (`proposals`), the verifier protocol, a delivered verifier's files as logs keep them, and the metrics core."""
