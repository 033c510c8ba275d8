#!/usr/bin/env python3
"""Eight concurrent streaming clients against `tide serve`, against the same requests one at a time.

Starts `tide serve --parallel 8` on a free loopback port (the release build by default), then
alternates two sides for a number of rounds:

  one at a time  the eight questions sent one after another, each streamed to its end;
  concurrent     the eight questions sent at once by eight client threads.

Each request is streamed with the official `openai` client (greedy, `max_tokens` 128, usage in the
last chunk). For each side: total generated tokens over the wall time from the first request sent
to the last reply complete (throughput), and each request's time to first token (first streamed
piece of text). Prints the medians over the rounds and the ratio concurrent / one at a time of
throughput, measured in the same run. Figures: docs/benchmarks.md.

Run it with `make bench-serve`, or: ~/.cache/tide/llama-server/bin/python scripts/bench-serve.py
[--tide .build/release/tide] [--rounds 5] [--clients 8] [--max-tokens 128]
(that Python, set up by scripts/setup.sh, has the openai client).
"""
import argparse
import json
import socket
import statistics
import subprocess
import threading
import time
import urllib.request

import openai

QUESTIONS = [
    "Tell me a short story about a lighthouse keeper.",
    "Tell me a short story about a fox in the snow.",
    "Tell me a short story about a robot who paints.",
    "Tell me a short story about a sailor and a whale.",
    "Tell me a short story about a baker at dawn.",
    "Tell me a short story about a lost kite.",
    "Tell me a short story about a clockmaker.",
    "Tell me a short story about a garden on the moon.",
]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(tide, port, clients):
    server = subprocess.Popen([tide, "serve", "--port", str(port), "--parallel", str(clients)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health") as response:
                if response.status == 200:
                    return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("tide serve did not start within 60 s")


def ask(client, question, max_tokens):
    """Streams one reply: (time to first token, generated tokens)."""
    start = time.monotonic()
    first = None
    tokens = 0
    stream = client.chat.completions.create(
        model="smollm2-135m-instruct", temperature=0, max_tokens=max_tokens, stream=True,
        stream_options={"include_usage": True}, messages=[{"role": "user", "content": question}])
    for chunk in stream:
        if chunk.usage:
            tokens = chunk.usage.completion_tokens
        if first is None and any(choice.delta.content for choice in chunk.choices):
            first = time.monotonic() - start
    return first, tokens


def one_at_a_time(client, questions, max_tokens):
    start = time.monotonic()
    results = [ask(client, question, max_tokens) for question in questions]
    return time.monotonic() - start, results


def concurrent(client, questions, max_tokens):
    results = [None] * len(questions)

    def run(index):
        results[index] = ask(client, questions[index], max_tokens)

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(questions))]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.monotonic() - start, results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tide", default=".build/release/tide")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=128)
    arguments = parser.parse_args()
    questions = (QUESTIONS * arguments.clients)[:arguments.clients]
    port = free_port()
    server = start_server(arguments.tide, port, arguments.clients)
    try:
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused", max_retries=0)
        ask(client, "Hello!", 8)  # warm-up
        sides = {"one at a time": one_at_a_time, "concurrent": concurrent}
        figures = {name: {"throughput": [], "ttft": []} for name in sides}
        ratios = []
        for round_index in range(arguments.rounds):
            order = list(sides) if round_index % 2 == 0 else list(reversed(sides))
            measured = {}
            for name in order:
                seconds, results = sides[name](client, questions, arguments.max_tokens)
                throughput = sum(tokens for _, tokens in results) / seconds
                measured[name] = throughput
                figures[name]["throughput"].append(throughput)
                figures[name]["ttft"].extend(first for first, _ in results)
            ratios.append(measured["concurrent"] / measured["one at a time"])
        report = {}
        for name, values in figures.items():
            ttft = sorted(values["ttft"])
            report[name] = {
                "throughput_tokens_per_second": round(statistics.median(values["throughput"]), 1),
                "ttft_median_ms": round(statistics.median(ttft) * 1000, 1),
                "ttft_p90_ms": round(ttft[int(0.9 * (len(ttft) - 1))] * 1000, 1),
                "ttft_max_ms": round(ttft[-1] * 1000, 1),
            }
        report["throughput_ratio_concurrent_over_one_at_a_time"] = round(statistics.median(ratios), 3)
        report["rounds"] = arguments.rounds
        report["clients"] = arguments.clients
        print(json.dumps(report, indent=2))
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
