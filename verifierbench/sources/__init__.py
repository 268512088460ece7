"""One folder per upstream benchmark; `toolcall` holds what BFCL and ACEBench share."""
