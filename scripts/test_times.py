"""Where a test run's time went, by group (the test directory, the top-level test files one by one), from pytest's
JUnit XML (`--junitxml`, which .ci/run writes): the table docs/testing.md records.

    python scripts/test_times.py JUNIT_XML [--top N]
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict


def group_of(classname: str) -> str:
    """tests.executor.test_warm -> tests/executor; tests.test_install -> tests/test_install.py."""
    parts = classname.split(".")
    module_index = next((i for i, part in enumerate(parts) if part.startswith("test_")), len(parts) - 1)
    if module_index <= 1:
        return "/".join(parts[: module_index + 1]) + ".py"
    return "/".join(parts[:2])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit_xml")
    parser.add_argument("--top", type=int, default=10, help="also list the N slowest tests (default %(default)s)")
    args = parser.parse_args(argv)
    cases = list(ET.parse(args.junit_xml).getroot().iter("testcase"))
    seconds: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for case in cases:
        group = group_of(case.get("classname", ""))
        seconds[group] += float(case.get("time", 0))
        counts[group] += 1
    total = sum(seconds.values())
    # Tiers (tests/conftest.py writes each test's markers as the `tiers` property; a test may be in several).
    tier_seconds: dict[str, float] = defaultdict(float)
    tier_counts: dict[str, int] = defaultdict(int)
    for case in cases:
        tiers = next((p.get("value", "") for p in case.iter("property") if p.get("name") == "tiers"), "unit")
        for tier in tiers.split(","):
            tier_seconds[tier] += float(case.get("time", 0))
            tier_counts[tier] += 1
    if tier_seconds:
        print("test time by tier (a test counts in each of its tiers; `unit` has none)")
        for tier, spent in sorted(tier_seconds.items(), key=lambda item: -item[1]):
            print(f"  {spent / 60:7.1f} min  {tier_counts[tier]:4d} tests  {tier}")
    print(f"test time by group ({len(cases)} tests, {total / 60:.1f} min in tests; set-up of shared fixtures counts "
          "in the first test that uses them)")
    for group, spent in sorted(seconds.items(), key=lambda item: -item[1]):
        print(f"  {spent / 60:7.1f} min  {100 * spent / total if total else 0:5.1f} %  {counts[group]:4d} tests  {group}")
    print(f"the {args.top} slowest tests:")
    for case in sorted(cases, key=lambda c: -float(c.get("time", 0)))[: args.top]:
        print(f"  {float(case.get('time', 0)):8.1f} s  {case.get('classname')}::{case.get('name')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
