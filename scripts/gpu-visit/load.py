#!/usr/bin/env python3
"""N concurrent streaming chat clients against an OpenAI-compatible server; standard library only
(scripts/gpu-visit.sh runs it where the openai client is not installed).

usage: load.py URL N MAX_TOKENS LABEL   (URL = http://127.0.0.1:PORT)
Prints one JSON line: label, n, wall_s, tokens (usage.completion_tokens, else deltas), agg_tok_s,
ttft_median_ms, ttft_max_ms, errors, and a hash of the replies (to compare two servers).
"""
import hashlib, http.client, json, statistics, sys, threading, time
from urllib.parse import urlparse

url, n, max_tokens, label = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
u = urlparse(url)
barrier = threading.Barrier(n + 1)
results = [None] * n


def client(i):
    body = json.dumps({
        "model": "m", "stream": True, "temperature": 0, "max_tokens": max_tokens,
        "stream_options": {"include_usage": True},
        "messages": [{"role": "system", "content": "You are a helpful assistant."},
                     {"role": "user", "content": f"Write a short story about the number {i}."}],
    })
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
    barrier.wait()
    t0 = time.time(); first = None; deltas = 0; usage = None; text = []; err = None
    try:
        conn.request("POST", "/v1/chat/completions", body, {"content-type": "application/json"})
        r = conn.getresponse()
        if r.status != 200:
            err = f"HTTP {r.status}: {r.read()[:200]!r}"
        else:
            for raw in r:
                line = raw.decode().strip()
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                ev = json.loads(data)
                if ev.get("usage"):
                    usage = ev["usage"].get("completion_tokens")
                for ch in ev.get("choices") or []:
                    c = (ch.get("delta") or {}).get("content")
                    if c:
                        if first is None:
                            first = time.time()
                        deltas += 1; text.append(c)
    except Exception as e:  # noqa: BLE001
        err = repr(e)
    results[i] = dict(t0=t0, end=time.time(), first=first, deltas=deltas, usage=usage, text="".join(text), err=err)


threads = [threading.Thread(target=client, args=(i,)) for i in range(n)]
for t in threads:
    t.start()
barrier.wait(); start = time.time()
for t in threads:
    t.join()
ok = [r for r in results if r and not r["err"]]
wall = max(r["end"] for r in results) - start
tokens = sum((r["usage"] if r["usage"] is not None else r["deltas"]) for r in ok)
ttft = [1000 * (r["first"] - r["t0"]) for r in ok if r["first"]]
print(json.dumps(dict(label=label, n=n, wall_s=round(wall, 3), tokens=tokens, agg_tok_s=round(tokens / wall, 1),
                      ttft_median_ms=round(statistics.median(ttft), 1) if ttft else None,
                      ttft_max_ms=round(max(ttft), 1) if ttft else None,
                      errors=[r["err"] for r in results if r and r["err"]][:3],
                      replies_sha=hashlib.sha256("\x00".join(r["text"] for r in results if r).encode()).hexdigest()[:12])))
