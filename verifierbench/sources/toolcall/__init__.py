"""What the tool-call sources (BFCL, ACEBench) share: the candidate format, case generators and the reference wrapper."""
