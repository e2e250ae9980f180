#!/usr/bin/env python3
"""Idle-connection attack against a running broker, bounded in time.

Opens N idle TCP connections from one local address (default 127.0.0.1; half of them half-send a request head),
then, while they are held, times GET /health and a one-item push from another local address (default
127.0.0.2), and reports how many attack sockets the broker kept open over time.

  ulimit -n 30000   # the client needs one descriptor per socket, if the hard limit allows
  python3 bench/scripts/idle-attack.py 127.0.0.1 6632 21000
  # under a 20,000 per-process limit: two processes of 10,500 (the second only holds its sockets)
  python3 bench/scripts/idle-attack.py 127.0.0.1 6632 10500 127.0.0.1 127.0.0.2 hold &
  python3 bench/scripts/idle-attack.py 127.0.0.1 6632 10500

Exit status 0 when every probe was answered within 1 s.
"""
import select
import socket
import sys
import time

host = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1"
port = int(sys.argv[2]) if len(sys.argv) > 2 else 6632
count = int(sys.argv[3]) if len(sys.argv) > 3 else 21000
attacker = sys.argv[4] if len(sys.argv) > 4 else "127.0.0.1"
client = sys.argv[5] if len(sys.argv) > 5 else "127.0.0.2"
probing = not (len(sys.argv) > 6 and sys.argv[6] == "hold")   # "hold": only open and hold (a second process)


def probe(request):
    t0 = time.monotonic()
    s = socket.socket()
    s.settimeout(5)
    try:
        s.bind((client, 0))
        s.connect((host, port))
        s.sendall(request)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        status = data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/") else "no answer"
    except OSError as e:
        status = "error: %s" % e
    finally:
        s.close()
    return status, (time.monotonic() - t0) * 1000


def health():
    return probe(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")


def push():
    body = b'{"items":[{"queue":"idle-attack","payload":{"n":1}}]}'
    return probe(b"POST /api/v1/push HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
                 b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


def still_open(socks):
    """Sockets with no EOF/RST pending (the broker has not closed them)."""
    poller = select.poll()
    by_fd = {}
    for s in socks:
        poller.register(s, select.POLLIN | select.POLLHUP | select.POLLERR)
        by_fd[s.fileno()] = s
    gone = set()
    for fd, ev in poller.poll(0):
        s = by_fd[fd]
        try:
            if ev & (select.POLLHUP | select.POLLERR) or not s.recv(1, socket.MSG_PEEK):
                gone.add(s)
        except OSError:
            gone.add(s)
    alive = []
    for s in socks:
        if s in gone:
            s.close()
        else:
            alive.append(s)
    return alive


socks = []
failed = 0
t0 = time.monotonic()
for i in range(count):
    s = socket.socket()
    s.setblocking(True)
    try:
        s.bind((attacker, 0))
        s.connect((host, port))
        if i % 2 == 0:
            s.send(b"GET /health HTTP/1.1\r\nHost: x\r\n")   # a head that never ends
        socks.append(s)
    except OSError:
        failed += 1
        s.close()
opened = (time.monotonic() - t0)
print("opened %d connections from %s in %.1f s (%d connect errors)" % (len(socks), attacker, opened, failed))
if not probing:
    time.sleep(16)
    sys.exit(0)
worst = 0
ok = True
for t in range(0, 14, 2):
    socks = still_open(socks)
    hs, hms = health()
    ps, pms = push()
    worst = max(worst, hms, pms)
    ok = ok and hs == "200" and ps == "201" and hms < 1000 and pms < 1000
    print("t=%4.1fs held by broker: %5d  /health %s in %.0f ms  push %s in %.0f ms"
          % (time.monotonic() - t0 - opened, len(socks), hs, hms, ps, pms))
    time.sleep(2)
for s in socks:
    s.close()
print("worst probe latency %.0f ms; %s" % (worst, "OK" if ok else "FAILED"))
sys.exit(0 if ok else 1)
