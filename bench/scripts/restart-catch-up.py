#!/usr/bin/env python3
"""Catch-up after a broker restart under a steady load.

A producer pushes RATE messages/s (batches of 10) to one queue of 8 partitions and CONSUMERS threads pop the queue
(wildcard, batch 50, long poll) and ack what they got. After WARM seconds the broker is stopped with SIGTERM and the
same command started again; the script prints, per second, the pushed and acked totals and the backlog (pushed but
not acked), then: how long the broker took to answer again, how long until it was ready, and how long until the
backlog was back under its level before the restart. Requests that fail while the broker is away are retried (a
push with the same transaction ids, so nothing is stored twice).

  bench/scripts/restart-catch-up.py --port P --start 'command that starts the broker' [--rate 500] [--warm 20]
      [--after 60] [--consumers 4]

The start command runs in a shell with the environment of this script (PG_*, PORT, ...); its output goes to
broker-<n>.log in the current directory.
"""
import argparse, json, os, signal, subprocess, threading, time, urllib.request, urllib.error

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--start", required=True)
ap.add_argument("--rate", type=int, default=500)
ap.add_argument("--warm", type=int, default=20)
ap.add_argument("--after", type=int, default=60)
ap.add_argument("--consumers", type=int, default=4)
a = ap.parse_args()
base = f"http://127.0.0.1:{a.port}"
lock = threading.Lock()
pushed = acked = 0
stop = False


def call(method, path, body=None, timeout=35):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.read()


def start(n):
    log = open(f"broker-{n}.log", "w")
    return subprocess.Popen(a.start, shell=True, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def ready():
    try:
        return call("GET", "/q/health/ready", timeout=2)[0] == 200
    except Exception:
        return False


def producer():
    global pushed
    n = 0
    period = 10.0 / a.rate
    nxt = time.monotonic()
    while not stop:
        items = [{"queue": "catch-up", "partition": f"p{(n + i) % 8}", "transactionId": f"m{n + i}",
                  "payload": {"n": n + i, "at": time.time()}} for i in range(10)]
        while not stop:
            try:
                call("POST", "/api/v1/push", {"items": items})
                break
            except Exception:
                time.sleep(0.05)
        with lock:
            pushed += 10
        n += 10
        nxt += period
        time.sleep(max(0.0, nxt - time.monotonic()))


def consumer():
    global acked
    while not stop:
        try:
            st, body = call("GET", "/api/v1/pop/queue/catch-up?batch=50&wait=true&timeout=1000")
        except Exception:
            time.sleep(0.05)
            continue
        if st != 200:
            continue
        msgs = json.loads(body)["messages"]
        acks = [{"transactionId": m["transactionId"], "partitionId": m["partitionId"], "leaseId": m["leaseId"],
                 "status": "completed"} for m in msgs]
        while not stop:
            try:
                res = json.loads(call("POST", "/api/v1/ack/batch", {"acknowledgments": acks})[1])
                with lock:
                    acked += sum(1 for r in res if r["success"])
                break
            except Exception:
                time.sleep(0.05)


broker = start(1)
while not ready():
    time.sleep(0.1)
threads = [threading.Thread(target=producer, daemon=True)] + [threading.Thread(target=consumer, daemon=True)
                                                               for _ in range(a.consumers)]
for t in threads:
    t.start()
t0 = time.monotonic()
before = None
stopped_at = answered_at = ready_at = caught_up_at = None
while time.monotonic() - t0 < a.warm + a.after:
    time.sleep(1)
    el = time.monotonic() - t0
    with lock:
        p, k = pushed, acked
    backlog = p - k
    print(f"{el:6.1f} s  pushed {p:7d}  acked {k:7d}  backlog {backlog:6d}", flush=True)
    if stopped_at is None and el >= a.warm:
        before = max(backlog, 50)
        os.killpg(broker.pid, signal.SIGTERM)
        broker.wait()
        stopped_at = time.monotonic()
        broker = start(2)
        print(f"-- restarted (backlog before: {backlog})", flush=True)
    elif stopped_at is not None:
        if answered_at is None:
            try:
                call("GET", "/health", timeout=2)
                answered_at = time.monotonic()
            except urllib.error.HTTPError:
                answered_at = time.monotonic()
            except Exception:
                pass
        if ready_at is None and ready():
            ready_at = time.monotonic()
        if ready_at is not None and caught_up_at is None and backlog <= before:
            caught_up_at = time.monotonic()
stop = True
os.killpg(broker.pid, signal.SIGTERM)
broker.wait()
f = lambda t: "never" if t is None else f"{t - stopped_at:.1f} s"
print(f"after the restart: HTTP answered {f(answered_at)}, ready {f(ready_at)}, backlog back to {before} {f(caught_up_at)}")
