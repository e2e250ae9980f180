#!/usr/bin/env python3
"""Cost of N parked long polls (issue 4): broker threads and RSS before / while N pops wait on an empty queue,
then one push wakes exactly one of them.

usage: parked-polls.py <broker-url> <broker-pid> [N=1000] [timeout-ms=30000]
Opens N concurrent `GET /api/v1/pop/queue/<q>/partition/p?wait=true&timeout=<ms>` on a fresh empty queue (one
TCP connection each), samples /proc/<pid>/status (Threads, VmRSS) before, while parked, and after a single push,
and reports how many polls the push completed (expected: 1) and the wake-up latency.
"""
import asyncio, json, sys, time, urllib.request, uuid

url, pid = sys.argv[1].rstrip('/'), int(sys.argv[2])
n = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
timeout_ms = int(sys.argv[4]) if len(sys.argv) > 4 else 30000
host, port = url.split('://')[1].split(':')
port = int(port)
queue = 'parked-' + uuid.uuid4().hex[:8]


def status():
    d = {}
    for line in open(f'/proc/{pid}/status'):
        k, _, v = line.partition(':')
        if k in ('Threads', 'VmRSS'):
            d[k] = v.strip()
    return d


def post(path, body):
    r = urllib.request.Request(url + path, data=json.dumps(body).encode(), headers={'content-type': 'application/json'})
    return json.load(urllib.request.urlopen(r, timeout=30))


async def poll(i, done):
    r, w = await asyncio.open_connection(host, port)
    w.write((f'GET /api/v1/pop/queue/{queue}/partition/p?wait=true&timeout={timeout_ms} HTTP/1.1\r\n'
             f'Host: {host}\r\nConnection: close\r\n\r\n').encode())
    await w.drain()
    data = await r.read()
    done.append((i, time.monotonic(), data.split(b'\r\n', 1)[0].decode(), b'"messages":[{' in data))
    w.close()


async def main():
    post('/api/v1/configure', {'queue': queue})
    post('/api/v1/push', {'items': [{'queue': queue, 'partition': 'p', 'payload': {'warm': 1}}]})
    # drain the warm-up message so the queue is empty
    urllib.request.urlopen(f'{url}/api/v1/pop/queue/{queue}/partition/p?wait=false&autoAck=true', timeout=30).read()
    before = status()
    done = []
    t0 = time.monotonic()
    tasks = [asyncio.create_task(poll(i, done)) for i in range(n)]
    await asyncio.sleep(min(8.0, timeout_ms / 4000))
    parked = status()
    print(f'parked {n} long polls in {time.monotonic() - t0:.1f} s; completed early: {len(done)}')
    t_push = time.monotonic()
    post('/api/v1/push', {'items': [{'queue': queue, 'partition': 'p', 'payload': {'wake': 1}}]})
    await asyncio.sleep(2.0)
    woke = [d for d in done if d[1] >= t_push]
    with_msg = [d for d in woke if d[3]]
    lat = min((d[1] - t_push for d in with_msg), default=None)
    after = status()
    print(f'threads: before {before["Threads"]}, parked {parked["Threads"]}, after push {after["Threads"]}')
    print(f'VmRSS:   before {before["VmRSS"]}, parked {parked["VmRSS"]}, after push {after["VmRSS"]}')
    print(f'one push completed {len(woke)} poll(s), {len(with_msg)} with the message'
          + (f', first in {lat * 1000:.1f} ms after the push was sent' if lat is not None else ''))
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    try:
        urllib.request.urlopen(urllib.request.Request(f'{url}/api/v1/resources/queues/{queue}', method='DELETE'),
                               timeout=30).read()
    except Exception:
        pass

asyncio.run(main())
