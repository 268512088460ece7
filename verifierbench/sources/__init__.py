"""One folder per upstream benchmark, each a `Source` subclass in its `source.py` (base.py) listed in `registry.py`;
`formats` holds the candidate formats a source declares (its tasks' type comes from it), `toolcall` what BFCL and
ACEBench share (`ToolCallSource`), `interaction` what the state sources share (`InteractionSource`)."""
