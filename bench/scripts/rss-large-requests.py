# Resident memory of a broker around large requests: four pushes of 60 x 1 MB messages (queues rss0..rss3), then
# four concurrent pops of those queues (autoAck), printing VmRSS after each step and 10 s after the pops.
#   python3 bench/scripts/rss-large-requests.py <broker port> <broker pid>
import json, sys, time, threading, urllib.request, os
port, pid = sys.argv[1], sys.argv[2]
base = "http://127.0.0.1:%s" % port
def rss():
    for l in open("/proc/%s/status" % pid):
        if l.startswith("VmRSS"): return int(l.split()[1]) // 1024
def req(method, path, body=None):
    r = urllib.request.Request(base + path, data=body, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(r, timeout=600) as f:
        return f.status, f.read()
print("baseline RSS MB", rss(), flush=True)
pad = "x" * (1 << 20)
for q in range(4):
    items = ",".join('{"queue":"rss%d","transactionId":"t%d","payload":{"pad":"%s"}}' % (q, i, pad) for i in range(60))
    body = ('{"items":[%s]}' % items).encode()
    st, _ = req("POST", "/api/v1/push", body)
    if q == 0: print("after one 60 MB push: status", st, "RSS MB", rss(), flush=True)
print("after four 60 MB pushes: RSS MB", rss(), flush=True)
sizes = []
def pop(q):
    st, b = req("GET", "/api/v1/pop/queue/rss%d?batch=100&wait=false&autoAck=true" % q)
    sizes.append(len(b))
ts = [threading.Thread(target=pop, args=(q,)) for q in range(4)]
for t in ts: t.start()
peak = 0
while any(t.is_alive() for t in ts):
    peak = max(peak, rss()); time.sleep(0.05)
print("4 concurrent pops, answer sizes MB", [s >> 20 for s in sizes], "peak RSS MB", peak, "after RSS MB", rss(), flush=True)
time.sleep(10)
print("10 s later RSS MB", rss(), flush=True)
