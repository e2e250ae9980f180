#!/usr/bin/env python3
"""usage: parked-xact.py <url> <db> <n> [timeout-ms=20000] [window-s=10]: parks n long polls on an empty queue (one
HTTP/1.1 connection each, spread over 127.0.0.1-4 so the per-address cap of parked polls does not apply) and, after
12 s for their first attempts to be counted, reports the PostgreSQL commits/s of database <db> during the window.
psql on PATH; PGHOST/PGUSER/PGPASSWORD from the environment (default 127.0.0.1, postgres, postgres)."""
import asyncio, json, os, subprocess, sys, time, urllib.request, uuid
url, db, n = sys.argv[1].rstrip('/'), sys.argv[2], int(sys.argv[3])
timeout_ms = int(sys.argv[4]) if len(sys.argv) > 4 else 20000
window = float(sys.argv[5]) if len(sys.argv) > 5 else 10
host, port = url.split('://')[1].split(':'); port = int(port)
q = 'idle-' + uuid.uuid4().hex[:6]
def xact():
    env = dict(os.environ)
    env.setdefault('PGPASSWORD', 'postgres')
    return int(subprocess.check_output(['psql', '-h', env.get('PGHOST', '127.0.0.1'), '-U', env.get('PGUSER', 'postgres'),
        '-Atc', f"select xact_commit from pg_stat_database where datname='{db}'"], env=env).strip())
def post(path, body):
    r = urllib.request.Request(url + path, data=json.dumps(body).encode(), headers={'content-type': 'application/json'})
    return urllib.request.urlopen(r, timeout=30).read()
async def poll(res, local):
    try:
        r, w = await asyncio.open_connection(host, port, limit=1 << 20, local_addr=(local, 0))
        w.write(f'GET /api/v1/pop/queue/{q}/partition/p?wait=true&timeout={timeout_ms} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'.encode())
        await w.drain()
        data = await r.read()
        res.append(data.split(b'\r\n', 1)[0].decode())
        w.close()
    except Exception as e:
        res.append('error ' + type(e).__name__)
async def main():
    post('/api/v1/push', {'items': [{'queue': q, 'partition': 'p', 'payload': {'warm': 1}}]})
    urllib.request.urlopen(f'{url}/api/v1/pop/queue/{q}/partition/p?wait=false&autoAck=true', timeout=30).read()
    res = []
    tasks = [asyncio.create_task(poll(res, f'127.0.0.{1 + i % 4}')) for i in range(n)]
    await asyncio.sleep(12)
    x0, t0 = xact(), time.monotonic()
    await asyncio.sleep(window)
    x1, t1 = xact(), time.monotonic()
    print(f'{n} parked polls: {x1 - x0} commits in {t1 - t0:.1f} s = {(x1 - x0) / (t1 - t0):.1f}/s; answered early: {len(res)}')
    await asyncio.gather(*tasks)
    from collections import Counter
    print('answers:', Counter(res))
asyncio.run(main())
