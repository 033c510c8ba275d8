"""llama.cpp's own sampling, as llama-server's common_sampler builds its chain, through
llama-cpp-python's bindings of the same library: the reference that SamplerReferenceTests
compares Tide's samplers with.

Usage: python reference_sampling.py MODEL.gguf JSON
JSON holds "prompt" (plain text, tokenized as Tide tokenizes a raw prompt), "max_tokens", and
llama-server's fields (temperature, seed, top_k, top_p, min_p, typical_p, top_n_sigma,
repeat_penalty, repeat_last_n, presence_penalty, frequency_penalty, dry_*, xtc_*, mirostat*,
logit_bias as a list of [token id or text, bias]). Prints the reply's text as JSON.
"""
import ctypes
import json
import os
import sys

import llama_cpp as L


def tokenize(vocab, text, add_special, parse_special):
    data = text.encode()
    buffer = (L.llama_token * (len(data) + 8))()
    count = L.llama_tokenize(vocab, data, len(data), buffer, len(buffer), add_special, parse_special)
    return list(buffer[:count])


def piece(vocab, token):
    buffer = ctypes.create_string_buffer(256)
    count = L.llama_token_to_piece(vocab, token, buffer, len(buffer), 0, False)
    return buffer.raw[:count]


def main():
    path, request = sys.argv[1], json.loads(sys.argv[2])
    get = lambda name, default: request.get(name, default)
    L.llama_backend_init()
    model = L.llama_model_load_from_file(path.encode(), L.llama_model_default_params())
    if not model:
        sys.exit(f"llama.cpp could not load {path}")
    vocab = L.llama_model_get_vocab(model)
    n_vocab = L.llama_vocab_n_tokens(vocab)
    params = L.llama_context_default_params()
    params.n_ctx = 1024
    params.n_batch = 1024
    params.flash_attn_type = 1  # enabled, as Tide's contexts
    # One thread per core, as Tide uses on an idle machine (llama.cpp's default of 4 spins on 2 cores).
    params.n_threads = params.n_threads_batch = os.cpu_count()
    context = L.llama_init_from_model(model, params)

    seed = get("seed", 0xFFFFFFFF)
    chain = L.llama_sampler_chain_init(L.llama_sampler_chain_default_params())
    add = lambda sampler: L.llama_sampler_chain_add(chain, sampler)
    biases = []
    for key, bias in get("logit_bias", []):
        for token in ([key] if isinstance(key, int) else tokenize(vocab, key, False, False)):
            biases.append(L.llama_logit_bias(token, float("-inf") if bias is False else bias))
    if biases:
        add(L.llama_sampler_init_logit_bias(n_vocab, len(biases), (L.llama_logit_bias * len(biases))(*biases)))
    temperature = get("temperature", 0.6)
    if get("mirostat", 0) == 0:
        add(L.llama_sampler_init_penalties(n_vocab, get("repeat_last_n", 64), get("repeat_penalty", 1.0),
                                           get("frequency_penalty", 0.0), get("presence_penalty", 0.0)))
        breakers = [b.encode() for b in get("dry_sequence_breakers", ["\n", ":", "\"", "*"])]
        add(L.llama_sampler_init_dry(vocab, get("dry_multiplier", 0.0), get("dry_base", 1.75), get("dry_allowed_length", 2),
                                     get("dry_penalty_last_n", 64), (ctypes.c_char_p * len(breakers))(*breakers), len(breakers)))
        add(L.llama_sampler_init_top_n_sigma(get("top_n_sigma", -1.0)))
        add(L.llama_sampler_init_top_k(get("top_k", 40)))
        add(L.llama_sampler_init_typical(get("typical_p", 1.0), 0))
        add(L.llama_sampler_init_top_p(get("top_p", 0.95), 0))
        add(L.llama_sampler_init_min_p(get("min_p", 0.05), 0))
        add(L.llama_sampler_init_xtc(get("xtc_probability", 0.0), get("xtc_threshold", 0.1), 0, seed))
        add(L.llama_sampler_init_temp_ext(temperature, 0.0, 1.0))
        add(L.llama_sampler_init_dist(seed))
    else:
        add(L.llama_sampler_init_temp(temperature))
        if get("mirostat", 0) == 1:
            add(L.llama_sampler_init_mirostat(n_vocab, seed, get("mirostat_tau", 5.0), get("mirostat_eta", 0.1), 100))
        else:
            add(L.llama_sampler_init_mirostat_v2(seed, get("mirostat_tau", 5.0), get("mirostat_eta", 0.1)))

    prompt = tokenize(vocab, request["prompt"], True, True)
    for token in prompt:  # as llama-server's slot does before sampling
        L.llama_sampler_accept(chain, token)
    tokens = (L.llama_token * len(prompt))(*prompt)  # kept alive while the batch points at it
    L.llama_decode(context, L.llama_batch_get_one(tokens, len(prompt)))
    text = b""
    for _ in range(request["max_tokens"]):
        token = L.llama_sampler_sample(chain, context, -1)
        if L.llama_vocab_is_eog(vocab, token):
            break
        text += piece(vocab, token)
        tokens = (L.llama_token * 1)(token)
        L.llama_decode(context, L.llama_batch_get_one(tokens, 1))
    print(json.dumps(text.decode("utf-8", errors="replace")))


main()
