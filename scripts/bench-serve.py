#!/usr/bin/env python3
"""Streaming clients against `tide serve`: concurrent against one at a time, or against llama-server.

Three comparisons, each alternating its two sides round by round in one run:

--against one-at-a-time (the default)
    Starts `tide serve --parallel 8` on a free loopback port (the release build by default) and
    sends the eight questions one after another, each streamed to its end, against all at once
    from eight client threads.

--against llama-server
    Starts `tide serve` and llama.cpp's own `llama-server` (built once by
    scripts/build-llama-server.sh from the same llama.cpp source) on the same model file, with the
    same threads, slots (--parallel / -np) and context per slot, and sends the same requests to
    each, for 1 client and for 8 (--clients-list). Each round's questions are new (the round's
    number starts them), so neither server finds more than the system prompt in its cache. The
    greedy replies of the two servers are compared.

--against llama-server-embeddings
    Starts `tide serve --embedding-model` and `llama-server --embeddings` on the same embedding
    model file (the bundled all-MiniLM-L6-v2 by default), each free to put 64 texts and 8,192
    tokens in one decode (llama-server: 64 slots of 512 tokens, batches of 8,192), and posts
    --texts short texts (1,000, new each round) to each one's /v1/embeddings in one request:
    texts per second, and the cosine of the two servers' vectors for the same text.

--against noisy-neighbour
    Starts `tide serve --parallel 9` and streams the eight questions from eight client threads
    (time per token: the gaps between a reply's streamed pieces), alone and then beside a ninth
    client that keeps sending the heaviest requests the server's bounds allow, one after another
    until the eight are done: 64 DRY sequence breakers of 40 bytes, 1,024 logit biases on texts of
    256 bytes, 64 stop strings of 1,024 bytes; 128 small tools and 128 larger ones with a call
    required; and a prompt of 1,000,000 characters. The last three are rendered and tokenized, then
    refused: their prompts do not fit a sequence's 4,096 tokens; and the longest prompt that fits
    (3,900 words), new each time, evaluated a piece a step beside the clients' replies. The figure
    is the p99 of the eight clients' time per token beside it, over alone (goal: at most 1.5).

Each chat request is streamed with the official `openai` client (greedy: temperature 0 and
repeat_penalty 1, an explicit system prompt, `max_tokens` 128, usage in the last chunk). For each
side: total generated tokens over the wall time from the first request sent to the last reply
complete (throughput), and each request's time to first token (first streamed piece of text).
Prints medians over the rounds and the median of the paired ratios, measured in the same run.
Figures: docs/benchmarks.md.

Run it with `make bench-serve`, or: ~/.cache/tide/llama-server/bin/python scripts/bench-serve.py
[--against one-at-a-time|llama-server|llama-server-embeddings|noisy-neighbour] [--tide .build/release/tide] [--rounds 5] [--clients 8]
[--clients-list 1,8] [--max-tokens 128] [--threads 2] [--ctx-size 2048]
(that Python, set up by scripts/setup.sh, has the openai client).
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request

import httpx
import openai

SYSTEM = "You are a helpful assistant."
SUBJECTS = [
    "a lighthouse keeper", "a fox in the snow", "a robot who paints", "a sailor and a whale",
    "a baker at dawn", "a lost kite", "a clockmaker", "a garden on the moon",
]
MODEL_DIR = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "tide", "models")
MODEL_FILE = os.path.join(MODEL_DIR, "SmolLM2-135M-Instruct.Q8_0.gguf")
EMBEDDING_MODEL_FILE = os.path.join(MODEL_DIR, "all-MiniLM-L6-v2.F16.gguf")


def questions(count, round_index=None):
    """`count` questions; with a round, ones no earlier round asked."""
    # The round's number comes first, so a question shares with earlier ones only the system prompt.
    head = "" if round_index is None else f"Story {round_index + 1}. "
    return [f"{head}Tell me a short story about {SUBJECTS[index % len(SUBJECTS)]}." for index in range(count)]


def free_ports(count):
    """`count` distinct free loopback ports (held open together while chosen)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def start(command, port, name):
    log = tempfile.TemporaryFile(mode="w+")
    try:
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log, text=True)
    except OSError as error:
        raise SystemExit(f"cannot start {name} ({command[0]}): {error.strerror}; "
                         "build Tide with `make build`, or pass --tide") from None
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if server.poll() is not None:
                log.seek(0)
                raise SystemExit(f"{name} exited with status {server.returncode}: {' '.join(command)}\n"
                                 + log.read()[-2000:])
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as response:
                    if response.status == 200:
                        return server
            except OSError:
                time.sleep(0.1)
        raise SystemExit(f"{name} did not start within 120 s")
    except BaseException:
        stop([server])
        raise


def stop(servers):
    """Asks every server to end, then waits for each (killing one that takes over 30 s)."""
    for server in servers:
        server.terminate()
    for server in servers:
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def ask(client, question, max_tokens):
    """Streams one reply: (time to first token, generated tokens, text)."""
    start_time = time.monotonic()
    first = None
    tokens = 0
    text = []
    stream = client.chat.completions.create(
        model="smollm2-135m-instruct", temperature=0, max_tokens=max_tokens, stream=True,
        stream_options={"include_usage": True}, extra_body={"repeat_penalty": 1.0},
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])
    for chunk in stream:
        if chunk.usage:
            tokens = chunk.usage.completion_tokens
        pieces = [choice.delta.content for choice in chunk.choices if choice.delta.content]
        if pieces and first is None:
            first = time.monotonic() - start_time
        text.extend(pieces)
    return first, tokens, "".join(text)


def one_at_a_time(client, asked, max_tokens):
    start_time = time.monotonic()
    results = [ask(client, question, max_tokens) for question in asked]
    return time.monotonic() - start_time, results


def concurrent(client, asked, max_tokens):
    results = [None] * len(asked)

    def run(index):
        results[index] = ask(client, asked[index], max_tokens)

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(asked))]
    start_time = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.monotonic() - start_time, results


def summary(throughputs, ttfts):
    # A reply with no text (none in these runs) has no first token to time.
    ttft = sorted(first for first in ttfts if first is not None) or [float("nan")]
    return {
        "throughput_tokens_per_second": round(statistics.median(throughputs), 1),
        "ttft_median_ms": round(statistics.median(ttft) * 1000, 1),
        "ttft_p90_ms": round(ttft[int(0.9 * (len(ttft) - 1))] * 1000, 1),
        "ttft_max_ms": round(ttft[-1] * 1000, 1),
    }


def compare(sides, rounds, ask_round):
    """Alternates the sides' order round by round. `ask_round(side, round)` returns (seconds,
    results); returns the figures per side and the results per side and round."""
    figures = {name: {"throughput": [], "ttft": []} for name in sides}
    replies = {name: [] for name in sides}
    for round_index in range(rounds):
        order = list(sides) if round_index % 2 == 0 else list(reversed(sides))
        for name in order:
            seconds, results = ask_round(name, round_index)
            figures[name]["throughput"].append(sum(tokens for _, tokens, _ in results) / seconds)
            figures[name]["ttft"].extend(first for first, _, _ in results)
            replies[name].append([text for _, _, text in results])
    return figures, replies


def paired_ratios(figures, numerator, denominator):
    return [a / b for a, b in zip(figures[numerator]["throughput"], figures[denominator]["throughput"])]


def against_one_at_a_time(arguments):
    asked = questions(arguments.clients)
    port, = free_ports(1)
    server = start([arguments.tide, "serve", "--port", str(port), "--parallel", str(arguments.clients)],
                   port, "tide serve")
    try:
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused", max_retries=0)
        ask(client, "Hello!", 8)  # warm-up
        sides = {"one at a time": one_at_a_time, "concurrent": concurrent}
        figures, _ = compare(sides, arguments.rounds,
                             lambda name, _: sides[name](client, asked, arguments.max_tokens))
        report = {name: summary(values["throughput"], values["ttft"]) for name, values in figures.items()}
        report["throughput_ratio_concurrent_over_one_at_a_time"] = round(
            statistics.median(paired_ratios(figures, "concurrent", "one at a time")), 3)
        report["rounds"] = arguments.rounds
        report["clients"] = arguments.clients
        return report
    finally:
        stop([server])


def token_gaps(client, question, max_tokens):
    """Streams one reply: the seconds between its streamed pieces of text."""
    stamps = []
    stream = client.chat.completions.create(
        model="smollm2-135m-instruct", temperature=0, max_tokens=max_tokens, stream=True, extra_body={"repeat_penalty": 1.0},
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])
    for chunk in stream:
        if any(choice.delta.content for choice in chunk.choices):
            stamps.append(time.monotonic())
    return [later - earlier for earlier, later in zip(stamps, stamps[1:])]


def heaviest_requests():
    """The heaviest requests within tide serve's bounds, each refused or answered in a token: for
    each, the body to send as the neighbour's request number `sent`."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    question = [{"role": "user", "content": "Hi"}]
    sampler = {"messages": question, "max_tokens": 1, "dry_multiplier": 1.0,
               "dry_sequence_breakers": [letters[index % 26] * 39 + str(index % 10) for index in range(64)],
               "logit_bias": {f"{letters[index % 26]}{index} " * 40 + letters[:256 - 40 * (len(str(index)) + 2)]: -1.0
                              for index in range(1024)},
               "stop": [f"{index}:" + "s" * 1018 for index in range(64)]}
    tool = lambda index: {"type": "function", "function": {
        "name": f"tool_{index}", "description": "A tool. " * 20,
        "parameters": {"type": "object", "required": ["a", "b"], "properties": {
            "a": {"type": "string", "enum": [f"v{value}" for value in range(20)]},
            "b": {"type": "object", "properties": {"c": {"type": "array", "items": {"type": "integer"}}, "d": {"type": "boolean"}}}}}}}
    small = lambda index: {"type": "function", "function": {"name": f"t{index}", "parameters": {
        "type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}, "b": {"type": "array", "items": {"type": "string"}}}}}}
    tools = {"messages": question, "max_tokens": 1, "tools": [small(index) for index in range(128)], "tool_choice": "required"}
    big_tools = {"messages": question, "max_tokens": 1, "tools": [tool(index) for index in range(128)], "tool_choice": "required"}
    prompt = {"messages": [{"role": "user", "content": "word " * 200_000}], "max_tokens": 1}
    # The longest prompt a sequence holds, new each time it is sent (its first words differ), so
    # that no cached prefix spares its evaluation.
    fitting = lambda sent: {"messages": [{"role": "user", "content": f"Message {sent}: " + "word " * 3_900}], "max_tokens": 1}
    return [lambda sent, body=body: body for body in (sampler, tools, big_tools, prompt)] + [fitting]


def against_noisy_neighbour(arguments):
    asked = questions(arguments.clients)
    port, = free_ports(1)
    server = start([arguments.tide, "serve", "--port", str(port), "--parallel", str(arguments.clients + 1)], port, "tide serve")
    base = f"http://127.0.0.1:{port}/v1"
    heavy = heaviest_requests()
    request = lambda sent: heavy[sent % len(heavy)](sent)
    for body in [request(index) for index in range(len(heavy))]:
        for key, bound in (("dry_sequence_breakers", 64), ("stop", 64)):
            assert len(body.get(key, [])) <= bound and all(len(text.encode()) <= (40 if key.startswith("dry") else 1024)
                                                             for text in body.get(key, []))
        assert all(len(key.encode()) <= 256 for key in body.get("logit_bias", {}))
    try:
        client = openai.OpenAI(base_url=base, api_key="unused", max_retries=0)
        token_gaps(client, "Hello!", 8)  # warm-up
        statuses = {}
        for body in [request(index) for index in range(len(heavy))]:  # each within the bounds: answered, or refused for its prompt's length alone
            reply = httpx.post(base + "/chat/completions", json={"model": "m", **body}, timeout=300)
            statuses[len(statuses)] = [reply.status_code, (reply.json().get("error") or {}).get("code")]
        gaps = {"alone": [], "beside": []}
        ratios, heavy_sent = [], 0
        for round_index in range(arguments.rounds):
            round_gaps = {}
            for side in (["alone", "beside"] if round_index % 2 == 0 else ["beside", "alone"]):
                results = [None] * len(asked)
                done = threading.Event()
                sent = [0]

                def neighbour():
                    with httpx.Client(timeout=300) as http:
                        while not done.is_set():
                            http.post(base + "/chat/completions", json={"model": "m", **request(sent[0])})
                            sent[0] += 1

                def run(index):
                    results[index] = token_gaps(client, asked[index], arguments.max_tokens)

                threads = [threading.Thread(target=run, args=(index,)) for index in range(len(asked))]
                noisy = threading.Thread(target=neighbour) if side == "beside" else None
                if noisy:
                    noisy.start()
                    time.sleep(0.2)
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
                done.set()
                if noisy:
                    noisy.join()
                    heavy_sent += sent[0]
                round_gaps[side] = [gap for result in results for gap in result]
                gaps[side].extend(round_gaps[side])
            ratios.append(percentile(round_gaps["beside"], 0.99) / percentile(round_gaps["alone"], 0.99))
        report = {side: {"time_per_token_p50_ms": round(percentile(values, 0.5) * 1000, 1),
                         "time_per_token_p99_ms": round(percentile(values, 0.99) * 1000, 1),
                         "tokens": len(values) + arguments.clients * arguments.rounds} for side, values in gaps.items()}
        report["p99_ratio_beside_over_alone"] = round(percentile(gaps["beside"], 0.99) / percentile(gaps["alone"], 0.99), 3)
        report["p99_ratio_per_round_median"] = round(statistics.median(ratios), 3)
        report["heavy_requests_sent"] = heavy_sent
        report["heavy_request_answers"] = statuses
        report["rounds"] = arguments.rounds
        report["clients"] = arguments.clients
        return report
    finally:
        stop([server])


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * (len(ordered) - 1) + 0.5))]


def llama_server_binary():
    """llama.cpp's own llama-server, built once by build-llama-server.sh."""
    here = os.path.dirname(os.path.abspath(__file__))
    return subprocess.run(["bash", os.path.join(here, "build-llama-server.sh")], check=True,
                          stdout=subprocess.PIPE, text=True).stdout.strip()


def embed(port, texts):
    """The vectors of `texts` from the server on `port` (one POST /v1/embeddings), and the seconds it took."""
    body = json.dumps({"input": texts, "encoding_format": "float"}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/embeddings", data=body,
                                     headers={"Content-Type": "application/json"})
    started = time.monotonic()
    with urllib.request.urlopen(request, timeout=600) as response:
        data = json.load(response)["data"]
    seconds = time.monotonic() - started
    return [item["embedding"] for item in sorted(data, key=lambda item: item["index"])], seconds


def cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / ((sum(x * x for x in a) * sum(y * y for y in b)) ** 0.5)


def against_llama_server_embeddings(arguments):
    binary = llama_server_binary()
    model = arguments.model if arguments.model != MODEL_FILE else EMBEDDING_MODEL_FILE
    if not os.path.exists(model):
        raise SystemExit(f"no model file at {model}: run `make setup`, or pass --model")
    ports = dict(zip(["tide", "llama-server"], free_ports(2)))
    commands = {
        "tide": [arguments.tide, "serve", "--embedding-model", model, "--port", str(ports["tide"]), "--parallel", "1"],
        "llama-server": [binary, "--model", model, "--embeddings", "--host", "127.0.0.1", "--port", str(ports["llama-server"]),
                         "--parallel", "64", "--ctx-size", str(64 * 512), "--batch-size", "8192", "--ubatch-size", "8192",
                         "--threads", str(arguments.threads), "--threads-batch", str(arguments.threads), "--no-webui"],
    }
    servers = {}
    try:
        for name, command in commands.items():
            servers[name] = start(command, ports[name], name)
        for port in ports.values():
            embed(port, ["Hello!"])  # warm-up
        rates = {name: [] for name in ports}
        similarities = []
        for round_index in range(arguments.rounds):
            texts = [f"Round {round_index + 1}, text {index + 1}: {SUBJECTS[index % len(SUBJECTS)]} watches the tide."
                     for index in range(arguments.texts)]
            order = list(ports) if round_index % 2 == 0 else list(reversed(ports))
            vectors = {}
            for name in order:
                vectors[name], seconds = embed(ports[name], texts)
                rates[name].append(len(texts) / seconds)
            similarities += [cosine(a, b) for a, b in zip(vectors["tide"], vectors["llama-server"])]
        return {"model": os.path.basename(model), "texts_per_request": arguments.texts, "rounds": arguments.rounds,
                "texts_per_second": {name: round(statistics.median(values), 1) for name, values in rates.items()},
                "ratio_tide_over_llama_server": round(statistics.median(
                    [a / b for a, b in zip(rates["tide"], rates["llama-server"])]), 3),
                "lowest_cosine_between_servers": round(min(similarities), 6)}
    finally:
        stop(list(servers.values()))


def against_llama_server(arguments):
    binary = llama_server_binary()
    if not os.path.exists(arguments.model):
        raise SystemExit(f"no model file at {arguments.model}: run `make setup`, or pass --model")
    report = {"model": os.path.basename(arguments.model), "threads": arguments.threads,
              "ctx_size_per_slot": arguments.ctx_size, "rounds": arguments.rounds,
              "max_tokens": arguments.max_tokens}
    for clients in [int(count) for count in arguments.clients_list.split(",")]:
        ports = dict(zip(["tide", "llama-server"], free_ports(2)))
        commands = {
            "tide": [arguments.tide, "serve", "--model", arguments.model, "--port", str(ports["tide"]),
                     "--parallel", str(clients), "--threads", str(arguments.threads),
                     "--ctx-size", str(arguments.ctx_size)],
            "llama-server": [binary, "--model", arguments.model, "--host", "127.0.0.1",
                             "--port", str(ports["llama-server"]), "--parallel", str(clients),
                             "--threads", str(arguments.threads), "--threads-batch", str(arguments.threads),
                             "--ctx-size", str(arguments.ctx_size * clients), "--no-webui"],
        }
        servers = {}
        try:
            for name, command in commands.items():
                servers[name] = start(command, ports[name], name)
            clients_by_name = {
                name: openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused", max_retries=0,
                                    timeout=600)
                for name, port in ports.items()}
            for client in clients_by_name.values():
                ask(client, "Hello!", 8)  # warm-up
            figures, replies = compare(
                list(commands), arguments.rounds,
                lambda name, round_index: concurrent(clients_by_name[name], questions(clients, round_index),
                                                     arguments.max_tokens))
            pairs = [(a, b) for round_a, round_b in zip(replies["tide"], replies["llama-server"])
                     for a, b in zip(round_a, round_b)]
            result = {name: summary(values["throughput"], values["ttft"]) for name, values in figures.items()}
            result["throughput_ratio_tide_over_llama_server"] = round(
                statistics.median(paired_ratios(figures, "tide", "llama-server")), 3)
            result["ttft_median_ratio_tide_over_llama_server"] = round(
                result["tide"]["ttft_median_ms"] / result["llama-server"]["ttft_median_ms"], 3)
            result["identical_replies"] = f"{sum(a == b for a, b in pairs)} of {len(pairs)}"
            report[f"{clients} clients"] = result
        finally:
            stop(list(servers.values()))
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", choices=["one-at-a-time", "llama-server", "llama-server-embeddings", "noisy-neighbour"],
                        default="one-at-a-time")
    parser.add_argument("--tide", default=".build/release/tide")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--clients", type=int, default=8, help="one-at-a-time, noisy-neighbour: the concurrent clients")
    parser.add_argument("--clients-list", default="1,8", help="llama-server: the client counts compared")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--model", default=MODEL_FILE, help="llama-server: the GGUF file both servers run")
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="llama-server: threads of each server")
    parser.add_argument("--ctx-size", type=int, default=2048, help="llama-server: context tokens per slot")
    parser.add_argument("--texts", type=int, default=1000, help="llama-server-embeddings: texts per request")
    arguments = parser.parse_args()
    runner = {"llama-server": against_llama_server, "llama-server-embeddings": against_llama_server_embeddings,
              "one-at-a-time": against_one_at_a_time, "noisy-neighbour": against_noisy_neighbour}[arguments.against]
    print(json.dumps(runner(arguments), indent=2))


if __name__ == "__main__":
    main()
