"""One folder per upstream benchmark, each a `Source` subclass in its `source.py` (base.py) listed in `registry.py`;
`toolcall` holds what BFCL and ACEBench share, `interaction` what the state sources share."""
