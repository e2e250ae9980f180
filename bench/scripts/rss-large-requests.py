# Resident memory of a broker around large requests: four pushes of N x 1 MB messages (queues rss0..rss3; N = 60 by
# default), P of them at a time (default 1: one after the other), then four concurrent pops of those queues
# (autoAck), printing VmRSS after each step and 10 s after the pops, and the peak over the whole run (sampled every
# 50 ms). A push or pop that fails is printed with its status.
#   python3 bench/scripts/rss-large-requests.py <broker port> <broker pid> [MB per push] [pushes at once]
import sys, time, threading, urllib.request, urllib.error
port, pid = sys.argv[1], sys.argv[2]
push_mb = int(sys.argv[3]) if len(sys.argv) > 3 else 60
at_once = int(sys.argv[4]) if len(sys.argv) > 4 else 1
base = "http://127.0.0.1:%s" % port
def rss():
    for l in open("/proc/%s/status" % pid):
        if l.startswith("VmRSS"): return int(l.split()[1]) // 1024
def req(method, path, body=None):
    r = urllib.request.Request(base + path, data=body, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(r, timeout=600) as f:
            return f.status, f.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
peak = [0]
done = threading.Event()
def sample():
    while not done.is_set():
        peak[0] = max(peak[0], rss()); time.sleep(0.05)
sampler = threading.Thread(target=sample, daemon=True); sampler.start()
print("baseline RSS MB", rss(), flush=True)
pad = "x" * (1 << 20)
statuses = []
def push(q):
    items = ",".join('{"queue":"rss%d","transactionId":"t%d","payload":{"pad":"%s"}}' % (q, i, pad) for i in range(push_mb))
    st, b = req("POST", "/api/v1/push", ('{"items":[%s]}' % items).encode())
    statuses.append(st)
    if st >= 300: print("push rss%d: status %d %s" % (q, st, b[:200]), flush=True)
for first in range(0, 4, at_once):
    ts = [threading.Thread(target=push, args=(q,)) for q in range(first, min(4, first + at_once))]
    for t in ts: t.start()
    for t in ts: t.join()
print("after four %d MB pushes (%d at a time): statuses %s, RSS MB %d" % (push_mb, at_once, statuses, rss()), flush=True)
sizes = []
def pop(q):
    st, b = req("GET", "/api/v1/pop/queue/rss%d?batch=100&wait=false&autoAck=true" % q)
    sizes.append(len(b))
    if st >= 300: print("pop rss%d: status %d %s" % (q, st, b[:200]), flush=True)
ts = [threading.Thread(target=pop, args=(q,)) for q in range(4)]
for t in ts: t.start()
for t in ts: t.join()
print("4 concurrent pops, answer sizes MB", [s >> 20 for s in sizes], "peak RSS MB over the run", peak[0], "after RSS MB", rss(), flush=True)
time.sleep(10)
done.set()
print("10 s later RSS MB", rss(), flush=True)
