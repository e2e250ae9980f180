#!/usr/bin/python3
"""Hostile-input attacks against a running broker, bounded in time; prints one figure per line.

  bomb HOST KAFKA_PORT PID [MIB...]   compressed Kafka produce batches that inflate to MIB MiB each (gzip, ~1 KB
                                      per MiB as sent), sent while a second connection produces ordinary batches:
                                      the broker's answer per bomb, the ordinary produces' answers, and the broker
                                      process' RSS before, at its peak (sampled every 50 ms) and after
  logs HOST HTTP_PORT KAFKA_PORT LOG N
                                      N bodies with an unreadable chunk size and N unreadable Kafka frames, each on
                                      a connection of its own: the status answered and the lines LOG grew by
  cap HOST HTTP_PORT ADDRESSES PER_ADDRESS SECONDS
                                      ADDRESSES loopback addresses (127.0.1.1, ...) open PER_ADDRESS idle
                                      connections each and reopen what the broker closed every 2 s, for SECONDS;
                                      meanwhile
                                      127.0.0.2 sends GET /health, GET /metrics/prometheus and a one-item push
                                      every ~0.4 s: how many got their answer, and the most connections the
                                      broker's gauge showed open
  bigbody HOST HTTP_PORT MIB CHUNK    a chunked push body of MIB MiB in CHUNK-byte chunks while GET /health is
                                      timed every 50 ms: the answer, when it came, the slowest health check

Needs Debian's python3-kafka (scripts/install-test-tools.sh) for the Kafka wire format.
"""
import os
import socket
import struct
import sys
import threading
import time

from kafka.protocol.produce import ProduceRequest, ProduceResponse
from kafka.protocol.api import RequestHeader
from kafka.record.default_records import DefaultRecordBatchBuilder


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return -1


def batch(value_bytes, count=1, compression=1):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=compression, is_transactional=False, producer_id=-1,
                                  producer_epoch=-1, base_sequence=-1, batch_size=1 << 30)
    for i in range(count):
        b.append(i, timestamp=int(time.time() * 1000), key=None, value=value_bytes, headers=[])
    return bytes(b.build())


def produce(sock, correlation, topic, records):
    req = ProduceRequest[3](transactional_id=None, required_acks=-1, timeout=30000,
                            topics=[(topic, [(0, records)])])
    header = RequestHeader(req, correlation_id=correlation, client_id="hostile")   # encode() holds it weakly
    body = header.encode() + req.encode()
    sock.sendall(struct.pack(">i", len(body)) + body)
    size = struct.unpack(">i", recv_exactly(sock, 4))[0]
    data = recv_exactly(sock, size)
    resp = ProduceResponse[3].decode(data[4:])
    return resp.topics[0][1][0][1]   # the partition's error code


def recv_exactly(sock, n):
    out = b""
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise ConnectionError("closed by the broker")
        out += chunk
    return out


def bomb(host, port, pid, sizes):
    print("rss_before_mb", rss_mb(pid))
    peak = [0]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], rss_mb(pid))
            time.sleep(0.05)

    ordinary = {"ok": 0, "failed": 0}

    def ordinary_producer():
        s = socket.create_connection((host, port))
        s.settimeout(30)
        n = 0
        while not stop.is_set():
            n += 1
            try:
                err = produce(s, n, "ordinary", batch(b'{"n": %d}' % n, count=10))
                ordinary["ok" if err == 0 else "failed"] += 1
            except Exception:
                ordinary["failed"] += 1
                s = socket.create_connection((host, port))
                s.settimeout(30)
        s.close()

    threading.Thread(target=sample, daemon=True).start()
    t = threading.Thread(target=ordinary_producer, daemon=True)
    t.start()
    for mib in sizes:
        records = batch(b"\0" * (mib << 20))
        s = socket.create_connection((host, port))
        s.settimeout(60)
        t0 = time.monotonic()
        try:
            err = produce(s, 1, "bomb", records)
            print("bomb_mib", mib, "bytes_sent", len(records), "error_code", err,
                  "answered_ms", int((time.monotonic() - t0) * 1000))
        except Exception as e:
            print("bomb_mib", mib, "bytes_sent", len(records), "no answer:", e)
        s.close()
    time.sleep(2)
    stop.set()
    t.join(35)
    print("ordinary_produces_ok", ordinary["ok"], "failed", ordinary["failed"])
    print("rss_peak_mb", peak[0])
    print("rss_after_mb", rss_mb(pid))


def lines(path):
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def logs(host, http_port, kafka_port, log, n):
    before = lines(log)
    statuses = {}
    for i in range(n):
        s = socket.create_connection((host, http_port))
        s.settimeout(10)
        s.sendall(b"POST /api/v1/push HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
        try:
            status = s.recv(12)[9:12].decode() or "closed"
        except Exception:
            status = "reset"
        statuses[status] = statuses.get(status, 0) + 1
        s.close()
    time.sleep(1)
    http_lines = lines(log) - before
    print("chunked_zz_requests", n, "answers", statuses, "log_lines", http_lines,
          "lines_per_request", round(http_lines / n, 3))
    before = lines(log)
    for i in range(n):
        s = socket.create_connection((host, kafka_port))
        s.settimeout(10)
        s.sendall(struct.pack(">ihhih", 22, 0, 9, i, -1) + b"\xff" * 12)
        try:
            s.recv(1)
        except Exception:
            pass
        s.close()
    time.sleep(1)
    kafka_lines = lines(log) - before
    print("bad_kafka_frames", n, "log_lines", kafka_lines, "lines_per_frame", round(kafka_lines / n, 3))


def probe(host, port, request):
    """The status of one request from 127.0.0.2 (Connection: close) and the whole answer."""
    s = socket.socket()
    s.settimeout(5)
    try:
        s.bind(("127.0.0.2", 0))
        s.connect((host, port))
        s.sendall(request)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        return data[9:12].decode(), data
    except Exception as e:
        return type(e).__name__, b""
    finally:
        s.close()


def cap(host, port, addresses, per_address, seconds):
    socks = {}
    stop = time.monotonic() + seconds

    def attacker(a):
        mine = []
        while time.monotonic() < stop:
            # reopen what the broker closed, up to PER_ADDRESS
            alive = []
            for s in mine:
                try:
                    if not s.recv(1):   # EOF: closed by the broker
                        s.close()
                        continue
                except BlockingIOError:
                    pass                # nothing to read: still open
                except Exception:
                    s.close()           # reset by the broker
                    continue
                alive.append(s)
            mine = alive
            while len(mine) < per_address and time.monotonic() < stop:
                s = socket.socket()
                s.setblocking(True)
                s.settimeout(2)
                try:
                    s.bind((a, 0))
                    s.connect((host, port))
                    s.setblocking(False)
                    mine.append(s)
                except Exception:
                    s.close()
                    break
            socks[a] = len(mine)
            time.sleep(2)
        for s in mine:
            s.close()

    threads = [threading.Thread(target=attacker, args=("127.0.1.%d" % (i + 1),), daemon=True)
               for i in range(addresses)]
    for t in threads:
        t.start()
    time.sleep(min(10, seconds / 3))   # let the attackers fill the cap
    body = b'{"items":[{"queue":"hostile","payload":{"n":1}}]}'
    health = {"ok": 0}
    metrics = {"ok": 0}
    push = {"ok": 0}

    def count(tally, status, ok):
        key = "ok" if status == ok else status
        tally[key] = tally.get(key, 0) + 1

    most_open = 0
    while time.monotonic() < stop - 1:
        h, _ = probe(host, port, b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        count(health, h, "200")
        m, text = probe(host, port, b"GET /metrics/prometheus HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        count(metrics, m, "200")
        for line in text.decode(errors="replace").splitlines():
            if line.startswith("queen_http_connections_open "):
                most_open = max(most_open, int(float(line.split()[1])))
        p, _ = probe(host, port, b"POST /api/v1/push HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                     b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        count(push, p, "201")
        time.sleep(0.4)
    print("attack_connections_opened_per_round", sum(socks.values()), "from", addresses, "addresses")
    print("broker_open_connections_max_seen", most_open)
    for name, tally in (("health", health), ("metrics", metrics), ("push", push)):
        print(name, "ok", tally["ok"], "of", sum(tally.values()), tally)
    for t in threads:
        t.join(10)


def bigbody(host, port, mib, chunk):
    """A chunked push body of MIB MiB in CHUNK-byte chunks while /health is timed every 50 ms."""
    lat = []
    stop = threading.Event()

    def health():
        while not stop.is_set():
            t0 = time.monotonic()
            status, _ = probe(host, port, b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            lat.append((time.monotonic() - t0) * 1000 if status == "200" else 99999)
            time.sleep(0.05)

    t = threading.Thread(target=health)
    t.start()
    time.sleep(0.5)
    s = socket.create_connection((host, port))
    s.settimeout(30)
    s.sendall(b"POST /api/v1/push HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n")
    piece = b"%x\r\n" % chunk + b"a" * chunk + b"\r\n"
    sent = 0
    t0 = time.monotonic()
    try:
        while sent < mib << 20:
            s.sendall(piece)
            sent += chunk
    except Exception:
        pass
    try:
        answer = s.recv(12)[9:12].decode() or "closed"
    except Exception as e:
        answer = type(e).__name__
    elapsed = int((time.monotonic() - t0) * 1000)
    time.sleep(0.5)
    stop.set()
    t.join()
    lat.sort()
    print("body_sent_mib", sent >> 20, "answer", answer, "after_ms", elapsed)
    print("health_ms_max", int(lat[-1]), "median", int(lat[len(lat) // 2]), "probes", len(lat))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "bomb":
        bomb(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), [int(x) for x in sys.argv[5:]] or [64, 128])
    elif mode == "logs":
        logs(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6]))
    elif mode == "bigbody":
        bigbody(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    elif mode == "cap":
        cap(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]))
    else:
        sys.exit(__doc__)
