"""ACEBench (normal categories): the answer keys from upstream's data and our reimplementation of its checker."""
