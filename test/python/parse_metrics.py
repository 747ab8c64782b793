"""Parses a Prometheus text-format exposition from stdin with prometheus_client's parser (the Prometheus
project's own) and prints it as JSON: {"families": [{"name", "type", "samples": [{"name", "labels",
"value"}]}]}. A line the parser refuses makes it raise, and this script exit non-zero."""
import json
import math
import sys

from prometheus_client.parser import text_string_to_metric_families


def number(value):
    # JSON has no infinities or NaN; the tests compare finite counts.
    return None if math.isinf(value) or math.isnan(value) else value


families = []
for family in text_string_to_metric_families(sys.stdin.read()):
    families.append({
        "name": family.name,
        "type": family.type,
        "samples": [{"name": s.name, "labels": s.labels, "value": number(s.value)} for s in family.samples],
    })
json.dump({"families": families}, sys.stdout)
