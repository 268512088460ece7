"""One folder per upstream benchmark, each declared in its `source.py` and named in `registry.py`;
`toolcall` holds what BFCL and ACEBench share, `interaction` what the state sources share."""
