#!/usr/bin/env python3
"""What Queen's Kafka listener served between two scrapes of /metrics/prometheus, for bench/scripts/kafka-soak.sh.

Usage: kafka_requests.py <before.txt> <after.txt> <seconds between them>
Prints one line of Kafka requests (per API: requests per second and mean latency, parse to answer, from
queen_kafka_request_seconds) and one of push commits (commits and segments per second, records per segment, from
queen_push_commits_total and queen_push_segment_messages): how many requests and database commits a shape makes per
record, which is where a shape with small batches spends its CPU.
"""
import re
import sys

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)')


def scrape(path):
    out = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if m and not line.startswith("#"):
                try:
                    out[(m.group(1), m.group(2) or "")] = float(m.group(3))
                except ValueError:
                    pass
    return out


def main():
    before, after, seconds = scrape(sys.argv[1]), scrape(sys.argv[2]), float(sys.argv[3])
    delta = {k: v - before.get(k, 0.0) for k, v in after.items()}
    count, total = {}, {}
    for (name, labels), v in delta.items():
        m = re.search(r'api="([^"]+)"', labels)
        if m and name == "queen_kafka_request_seconds_count":
            count[m.group(1)] = v
        elif m and name == "queen_kafka_request_seconds_sum":
            total[m.group(1)] = v
    busiest = sorted((api for api in count if count[api] > 0), key=lambda a: -count[a])[:6]
    parts = ["%s %.0f/s mean %.1f ms" % (api, count[api] / seconds, 1000 * total.get(api, 0) / count[api])
             for api in busiest]
    print("queen: Kafka requests over the recorded run (%.0f s): %s" % (seconds, "; ".join(parts) or "none"))
    commits = delta.get(("queen_push_commits_total", ""), 0)
    segments = delta.get(("queen_push_segment_messages_count", ""), 0)
    records = delta.get(("queen_push_segment_messages_sum", ""), 0)
    if commits > 0 and segments > 0:
        print("queen: push commits %.0f/s, %.0f segments/s, %.1f segments per commit, %.1f records per segment"
              % (commits / seconds, segments / seconds, segments / commits, records / segments))


if __name__ == "__main__":
    main()
