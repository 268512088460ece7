"""Judging backends: where hidden cases run. `local` (the warm bubblewrap executor in this process) or `ray`
(one long-lived actor per node of a Ray cluster, each owning a local executor). See docs/cluster.md."""
