#!/usr/bin/env python3
"""usage: parked-caps.py <port> <addresses> <per-address>: HTTP/1.1 long polls (one connection each, 60 s timeout)
from 127.0.0.1..N on an empty queue; after 8 s counts those answered at once (beyond the parked-poll caps) and those
waiting, then times /health, a push and a long poll from 127.0.0.200 (five rounds)."""
import asyncio, sys, time
port, na, per = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
async def req(local, raw):
    r, w = await asyncio.open_connection('127.0.0.1', port, local_addr=(local, 0))
    w.write(raw); await w.drain()
    data = await r.read(); w.close()
    return data.split(b'\r\n', 1)[0].decode()
async def poll(local, res):
    try:
        res.append(await req(local, b'GET /api/v1/pop/queue/totq/partition/p?wait=true&timeout=60000 HTTP/1.1\r\nHost: x\r\n\r\n'))
    except Exception as e:
        res.append('error ' + type(e).__name__)
async def main():
    res = []
    t0 = time.monotonic()
    tasks = []
    for a in range(1, na + 1):
        for _ in range(per):
            tasks.append(asyncio.create_task(poll(f'127.0.0.{a}', res)))
        await asyncio.sleep(0.2)
    await asyncio.sleep(8)
    from collections import Counter
    print(f'{na} addresses x {per} long polls in {time.monotonic() - t0:.1f} s: answered at once {Counter(res)}; waiting {len(tasks) - len(res)}')
    body = b'{"items":[{"queue":"probe","payload":{"n":1}}]}'
    for i in range(5):
        h0 = time.monotonic(); h = await req('127.0.0.200', b'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'); h1 = time.monotonic()
        p = await req('127.0.0.200', b'POST /api/v1/push HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ' + str(len(body)).encode() + b'\r\n\r\n' + body); p1 = time.monotonic()
        l = await req('127.0.0.200', b'GET /api/v1/pop/queue/totq/partition/p?wait=true&timeout=60000 HTTP/1.1\r\nHost: x\r\n\r\n'); l1 = time.monotonic()
        print(f'from 127.0.0.200: health "{h}" {1000*(h1-h0):.0f} ms, push "{p}" {1000*(p1-h1):.0f} ms, long poll "{l}" {1000*(l1-p1):.0f} ms')
        await asyncio.sleep(1)
    for t in tasks: t.cancel()
asyncio.run(main())
